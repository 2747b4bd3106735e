@testable import ICalendarReading

/// The `mailto:` reader (RFC 6068) of ORGANIZER on arbitrary text: it never traps, reads the same
/// twice, every address it gives is a dot-atom `local@domain`, and those addresses, written
/// again with every byte percent-encoded and joined by commas, read back the same. One address
/// and no fragment is what ORGANIZER takes, and nothing else.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let reading = MailtoURI.read(text)
    guard MailtoURI.read(text) == reading else { fatalError("not deterministic") }
    let address = ICalendarAddress(uri: text, commonName: nil)
    guard case .uri(let uri) = reading else {
        if address.email != nil { fatalError("an address from a URI that does not read") }
        return 0
    }
    for one in uri.addresses where !MailtoURI.isAddress(one) { fatalError("not an address: \(one)") }
    if !uri.addresses.isEmpty {
        let encoded = uri.addresses.map { $0.utf8.map { "%" + (($0 < 16) ? "0" : "") + String($0, radix: 16) }.joined() }
        guard case .uri(let again) = MailtoURI.read("mailto:" + encoded.joined(separator: ",")), again.addresses == uri.addresses else {
            fatalError("the addresses, percent-encoded, read otherwise")
        }
    }
    switch uri.singleAddress {
    case .one(let one):
        guard uri.addresses == [one], uri.fragment == nil, address.email == one, address.problem == nil else { fatalError("one address, not alone") }
    case .notOne(let problem):
        guard address.email == nil, address.problem == problem else { fatalError("ORGANIZER reads otherwise") }
    }
    return 0
}
