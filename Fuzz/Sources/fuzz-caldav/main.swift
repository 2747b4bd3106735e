@testable import CalDAV

/// What the CalDAV client reads from outside: response header lines (status lines, `ETag`),
/// collection URLs, and resource names. Each must answer without crashing; an accepted URL is
/// accepted again unchanged, and an entity tag kept is one `If-Match` may carry. And what
/// `reservoir add` reads of a page's response: its `Content-Type` (HTML only when its type is
/// one of the two), and the address it connects to (a mapped IPv4 address judged as that IPv4
/// address).
extension String {
    /// Without the spaces and tabs around it (RFC 9110 §5.6.3, OWS).
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if case .entityTag(let tag?) = ResponseHeaderLine(bytes) {
        precondition(tag.utf8.count <= CalDAVLimits.entityTagBytes)
        precondition(tag.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F })
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if let collection = try? CalDAVCollection(url: text) {
        precondition(collection.url.hasSuffix("/"))
        precondition((try? CalDAVCollection(url: collection.url))?.url == collection.url)
    }
    switch PageMediaType(contentType: text) {
    case .html:
        let essence = String(decoding: text.utf8.prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self)
        precondition(PageMediaType.htmlTypes.contains(essence.trimmingSpaces().lowercased()))
    case .other(let type): precondition(!PageMediaType.htmlTypes.contains(type) && type == type.lowercased())
    case .missing: break
    }
    if size >= 16 {
        let address = Array(bytes.prefix(16))
        let ipv4 = UInt32(address[12]) << 24 | UInt32(address[13]) << 16 | UInt32(address[14]) << 8 | UInt32(address[15])
        let mapped = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + address[12...]
        precondition(SpecialPurposeAddress.isSpecial(ipv6: mapped) == SpecialPurposeAddress.isSpecial(ipv4: ipv4))
        _ = SpecialPurposeAddress.isSpecial(ipv6: address)
    }
    let segment = CalDAVResourceName(uid: text).pathSegment
    precondition(segment.utf8.allSatisfy { CalDAVResourceName.isUnreserved($0) || $0 == UInt8(ascii: "%") })
    return 0
}
