@testable import CalDAV

/// What the CalDAV client reads from outside: response header lines (status lines, `ETag`),
/// collection URLs, and resource names. Each must answer without crashing; an accepted URL is
/// accepted again unchanged, and an entity tag kept is one `If-Match` may carry.
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
    let segment = CalDAVResourceName(uid: text).pathSegment
    precondition(segment.utf8.allSatisfy { CalDAVResourceName.isUnreserved($0) || $0 == UInt8(ascii: "%") })
    return 0
}
