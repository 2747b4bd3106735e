import ReservoirBase

/// The name of a calendar object resource inside a collection, as one percent-encoded path
/// segment (RFC 3986 §3.3).
///
/// Every byte of the UTF-8 name outside RFC 3986 §2.3's unreserved characters (`A–Z a–z 0–9
/// - . _ ~`) is written as `%XX` (§2.1), `%` itself included: a UID such as `a%b@x` becomes
/// `a%25b%40x.ics`, so the server stores the resource under the name it was given, and no
/// character can reach the path as a delimiter.
public struct CalDAVResourceName: Sendable, Hashable, CustomStringConvertible {
    /// The name as it is, before encoding.
    public let name: String
    /// The name percent-encoded, ready to append to a collection URL.
    public let pathSegment: String

    /// The resource of the event with this iCalendar UID (RFC 5545 §3.8.4.7): the UID and
    /// ".ics", the name RFC 4791 §4.1's examples give such resources. Never a dot segment.
    public init(uid: String) {
        self.init(unchecked: uid + ".ics")
    }

    /// A resource of any name except the empty one and the dot segments "." and "..", which
    /// RFC 3986 §5.2.4 would remove from the path (percent-encoding dots does not help:
    /// §2.3 makes `%2E` equivalent to ".").
    public init(_ name: String) throws(CalDAVError) {
        guard !name.isEmpty, name != ".", name != ".." else {
            throw CalDAVError(.invalidResourceName, "\(name.debugDescription) cannot name a resource")
        }
        self.init(unchecked: name)
    }

    private init(unchecked name: String) {
        self.name = name
        self.pathSegment = Self.percentEncoded(name)
    }

    public var description: String { pathSegment }

    /// `text` with every byte outside RFC 3986 §2.3's unreserved set written as `%XX`
    /// (uppercase hexadecimal, §2.1).
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 §2.3: `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        ASCII.isLetter(byte) || ASCII.isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }
}
