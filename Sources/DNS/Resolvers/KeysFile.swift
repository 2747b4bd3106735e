/// TXT records read from a zone-file subset instead of DNS: one record a line,
/// `NAME [TTL] [IN] TXT "string" ["string" …]`.
///
/// Names are case-insensitive with an optional trailing dot; the quoted strings of a line are
/// concatenated (RFC 6376 §3.6.2.2); `\"` and `\\` escape inside a string (RFC 1035 §5.1, which
/// also allows `\DDD` decimal escapes). Lines starting with `;` or `#` are comments; lines that
/// do not parse are skipped. Several lines with one name are several records, in file order.
/// A name absent from the file does not exist.
public final class KeysFile: TXTResolver {
    /// Longest line read; longer lines are skipped (a 4096-bit key record is under 1 KB).
    public static let maxLineLength = 65_536

    public enum Error: Swift.Error, Equatable {
        case unreadable(path: String, errno: Int32)
    }

    /// The file's bytes, and for each name (normalized) the lines that start with it, in
    /// file order. A line's strings are read when its name is looked up: a filter run asks for
    /// one or two names of a file that may hold hundreds.
    private let bytes: [UInt8]
    private let lines: [String: [Range<Int>]]

    /// How many non-comment lines could not be read.
    public var skippedLines: Int {
        lines.values.joined().count { $0.count > Self.maxLineLength || Self.parse(Array(bytes[$0])) == nil }
    }

    public init(text: String) {
        // Lines split on bytes (CR, LF or CRLF): a keys file is read by every filter run.
        bytes = Array(text.utf8)
        // Filled in a local: appending through the stored property copied the whole index for
        // every line.
        var lines: [String: [Range<Int>]] = [:]
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            defer { start = end + 1 }
            var nameStart = start
            while nameStart < end, bytes[nameStart] == 0x20 || bytes[nameStart] == 0x09 { nameStart += 1 }
            guard nameStart < end, bytes[nameStart] != UInt8(ascii: ";"), bytes[nameStart] != UInt8(ascii: "#") else { continue }
            var nameEnd = nameStart
            while nameEnd < end, bytes[nameEnd] != 0x20, bytes[nameEnd] != 0x09, bytes[nameEnd] != UInt8(ascii: "\"") { nameEnd += 1 }
            lines[Self.key(bytes[nameStart..<nameEnd]), default: []].append(start..<end)
        }
        self.lines = lines
    }

    public convenience init(path: String) throws {
        self.init(text: try FileContents.read(path))
    }

    public func lookupTXT(_ name: String) -> TXTLookupResult {
        let found = (lines[Self.key(name.utf8)] ?? []).compactMap { line -> String? in
            guard line.count <= Self.maxLineLength else { return nil }
            return Self.parse(Array(bytes[line]))?.text
        }
        return found.isEmpty ? .notFound : .found(found)
    }

    /// A name as the index keeps it: ASCII letters lowercased, trailing dots removed (names
    /// compare case-insensitively, RFC 4343).
    private static func key(_ name: some Collection<UInt8>) -> String {
        var folded = name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        while folded.last == UInt8(ascii: ".") { folded.removeLast() }
        return String(decoding: folded, as: UTF8.self)
    }

    /// `NAME [TTL] [class] TXT strings`, or nil.
    static func parse(_ line: [UInt8]) -> (name: String, text: String)? {
        var cursor = 0
        func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        func word() -> String? {
            while cursor < line.count, isBlank(line[cursor]) { cursor += 1 }
            let start = cursor
            while cursor < line.count, !isBlank(line[cursor]), line[cursor] != UInt8(ascii: "\"") { cursor += 1 }
            return cursor > start ? String(decoding: line[start..<cursor], as: UTF8.self) : nil
        }
        guard let name = word() else { return nil }
        // Optional TTL and class before the type (RFC 1035 §5.1 allows either order).
        var type: String?
        for _ in 0..<3 {
            guard let token = word() else { return nil }
            let upper = token.uppercased()
            if upper == "TXT" { type = upper; break }
            if upper == "IN" || upper.allSatisfy({ $0.isASCII && $0.isNumber }) { continue }
            return nil
        }
        guard type != nil else { return nil }
        var text: [UInt8] = []
        var strings = 0
        while true {
            while cursor < line.count, isBlank(line[cursor]) { cursor += 1 }
            guard cursor < line.count else { break }
            if line[cursor] == UInt8(ascii: ";") { break }   // trailing comment
            guard line[cursor] == UInt8(ascii: "\"") else {
                // An unquoted character-string (RFC 1035 §5.1) is one word.
                guard let bare = word() else { return nil }
                text += Array(bare.utf8)
                strings += 1
                continue
            }
            cursor += 1
            var closed = false
            while cursor < line.count {
                let b = line[cursor]
                if b == UInt8(ascii: "\"") { closed = true; cursor += 1; break }
                if b == UInt8(ascii: "\\"), cursor + 1 < line.count {
                    if let value = Self.decimalEscape(line, at: cursor + 1) {
                        text.append(value)
                        cursor += 4
                    } else {
                        text.append(line[cursor + 1])
                        cursor += 2
                    }
                    continue
                }
                text.append(b)
                cursor += 1
            }
            guard closed else { return nil }
            strings += 1
        }
        guard strings > 0 else { return nil }
        return (name, String(decoding: text, as: UTF8.self))
    }

    /// `\DDD` (RFC 1035 §5.1): three decimal digits naming an octet.
    private static func decimalEscape(_ line: [UInt8], at index: Int) -> UInt8? {
        guard index + 2 < line.count else { return nil }
        var value = 0
        for b in line[index...(index + 2)] {
            guard b >= 0x30, b <= 0x39 else { return nil }
            value = value * 10 + Int(b - 0x30)
        }
        return value <= 255 ? UInt8(value) : nil
    }
}
