import ReservoirBase

/// One header line of an HTTP/1.1 response as libcurl hands it to its header callback (the
/// status line, each field line, the empty line; CRLF included), read for what the client
/// keeps: where a response starts, and its entity tag.
enum ResponseHeaderLine: Equatable {
    /// `HTTP/…`: a response starts (RFC 9112 §4). An interim one (100 Continue) or the 401 of a
    /// first authentication round comes before the final one, so what was kept is dropped.
    case statusLine
    /// An `ETag` field (RFC 9110 §8.8.3): its value verbatim when it is an entity tag of
    /// printable ASCII up to `CalDAVLimits.entityTagBytes`, nil otherwise.
    case entityTag(String?)
    /// Any other line.
    case other

    init(_ line: some Collection<UInt8>) {
        var bytes = Array(line)
        while let last = bytes.last, last == 0x0D || last == 0x0A { bytes.removeLast() }
        if bytes.starts(with: Self.statusPrefix) {
            self = .statusLine
            return
        }
        // RFC 9112 §5.1: field-name ":" OWS field-value OWS, no whitespace before the colon.
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes[..<colon].map(ASCII.lowercased).elementsEqual(Self.etagName)
        else {
            self = .other
            return
        }
        var value = bytes[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value.removeFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value.removeLast() }
        self = .entityTag(Self.isEntityTag(value) ? String(decoding: value, as: UTF8.self) : nil)
    }

    private static let statusPrefix = Array("HTTP/".utf8)
    private static let etagName = Array("etag".utf8)

    /// RFC 9110 §8.8.3: `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE`, `etagc = %x21 / %x23-7E /
    /// obs-text`; obs-text is not kept (the tag goes back verbatim in `If-Match`).
    static func isEntityTag(_ value: ArraySlice<UInt8>) -> Bool {
        guard value.count <= CalDAVLimits.entityTagBytes else { return false }
        var opaque = value
        if opaque.starts(with: [UInt8(ascii: "W"), UInt8(ascii: "/")]) { opaque = opaque.dropFirst(2) }
        guard opaque.count >= 2, opaque.first == 0x22, opaque.last == 0x22 else { return false }
        return opaque.dropFirst().dropLast().allSatisfy { $0 == 0x21 || ($0 >= 0x23 && $0 <= 0x7E) }
    }
}
