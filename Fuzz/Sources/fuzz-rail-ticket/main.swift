@testable import RailTicket

/// Rail ticket bar codes: the first byte picks the entry point. 0: the whole reading (container,
/// inflation, records, FCB, reservations) against an empty key list; 1-3: the FCB decoder alone
/// for versions 1.3, 2 and 3; 4: the key list's XML.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 5 {
    case 0:
        let reading = RailTicket.read(bytes, keys: RailKeyList(keys: []))
        precondition(reading.signature != .unsigned, "a key list was given")
        if case .verified = reading.signature { preconditionFailure("verified against an empty key list") }
        _ = reading.items.map { $0.serialized() }
    case 1, 2, 3:
        let version: FCBVersion = [.v13, .v2, .v3][Int(data[0] % 5) - 1]
        if case .success(let ticket) = FCBDecoder.decode(bytes, version: version) {
            precondition(ticket.documents.count <= RailLimits.maxFCBDocuments, "more documents than the limit")
            precondition(ticket.travelers.count <= RailLimits.maxFCBTravelers, "more travellers than the limit")
            // Whether a bounded key may vouch for the ticket: allowed only when every issuing
            // time lies within the key's validity and not after the clock, and every product is
            // the listed owner's.
            var content = RailTicketContent(version: 2, signerCode: "1080", keyID: "00001")
            content.fcb = ticket
            let now: Int64 = 1_800_000_000
            let key = RailKey(issuerCode: 1080, keyID: 1, publicKey: [1], validFrom: 1_500_000_000, validUntil: 1_700_000_000, productOwners: [1080])
            if key.use(for: content, now: now) == .allowed {
                let skew = RailLimits.issuingClockSkewSeconds
                precondition(
                    content.issuingTimes.allSatisfy { $0 >= 1_500_000_000 - skew && $0 < 1_700_000_000 + skew && $0 <= now + skew },
                    "a time outside the key's validity allowed")
                precondition(content.productOwners.allSatisfy { $0 == 1080 }, "another owner's product allowed")
            }
        }
    default:
        if let list = try? RailKeyList(xml: bytes) {
            precondition(list.keys.count <= RailLimits.maxKeys, "more keys than the limit")
            // A validity read is whole days, its end after the day it names.
            for key in list.keys {
                if let from = key.validFrom { precondition(from % 86_400 == 0, "a start that is no day") }
                if let until = key.validUntil { precondition(until % 86_400 == 0, "an end that is no day") }
            }
        }
    }
    return 0
}
