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
        }
    default:
        if let list = try? RailKeyList(xml: bytes) { precondition(list.keys.count <= RailLimits.maxKeys, "more keys than the limit") }
    }
    return 0
}
