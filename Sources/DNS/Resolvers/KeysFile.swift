import Glibc
import ReservoirBase

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
    /// Largest keys file read; the bytes past it are not read.
    static let maxFileBytes = 16 * 1024 * 1024

    public enum Error: Swift.Error, Equatable {
        case unreadable(path: String, errno: Int32)
    }

    /// The file's bytes; a line's strings are read when its name is looked up.
    private let bytes: [UInt8]
    /// For each name (normalized), the lines that start with it, in file order: built at the
    /// lookup after the first ``scansBeforeIndex``, which each scan the lines for their name.
    /// A filter run asks for one or two names of a file that may hold hundreds, and indexing
    /// them all (a string and a dictionary entry a name) was 0.5 million instructions of a
    /// filter run on the bench's 33 KB file; a scan asks for thousands.
    private var index: [String: [Range<Int>]]?
    private var lookups = 0
    static let scansBeforeIndex = 4

    /// How many non-comment lines could not be read.
    public var skippedLines: Int {
        var skipped = 0
        forEachRecordLine { _, line in
            if text(of: line) == nil { skipped += 1 }
        }
        return skipped
    }

    public convenience init(text: String) {
        self.init(bytes: Array(text.utf8))
    }

    /// The file's bytes as they are: a record's strings are decoded as UTF-8 when it is read.
    public convenience init(path: String) throws {
        do {
            self.init(bytes: try FileBytes.read(path, limit: Self.maxFileBytes))
        } catch {
            throw Error.unreadable(path: path, errno: error.code)
        }
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public func lookupTXT(_ name: String) -> TXTLookupResult {
        let key = DomainName.normalized(name)
        lookups += 1
        let ranges: [Range<Int>]
        if let index {
            ranges = index[key] ?? []
        } else if lookups > Self.scansBeforeIndex {
            let built = buildIndex()
            index = built
            ranges = built[key] ?? []
        } else {
            ranges = lines(named: key)
        }
        let found = ranges.compactMap(text(of:))
        return found.isEmpty ? .notFound : .found(found)
    }

    /// Calls `body` with the name and the whole of each line that is not blank or a comment, in
    /// file order. Lines split on bytes (CR, LF or CRLF).
    private func forEachRecordLine(_ body: (_ name: Range<Int>, _ line: Range<Int>) -> Void) {
        var start = 0
        while start < bytes.count {
            let end = Self.lineEnd(bytes, from: start)
            defer { start = end + 1 }
            let nameStart = Self.skippingBlanks(bytes, from: start, to: end)
            guard nameStart < end, bytes[nameStart] != UInt8(ascii: ";"), bytes[nameStart] != UInt8(ascii: "#") else { continue }
            body(nameStart..<Self.wordEnd(bytes, from: nameStart, to: end), start..<end)
        }
    }

    private func buildIndex() -> [String: [Range<Int>]] {
        // Filled in a local: appending through a stored property copied the whole index for
        // every line.
        var index: [String: [Range<Int>]] = [:]
        forEachRecordLine { name, line in
            index[DomainName.normalized(String(decoding: bytes[name], as: UTF8.self)), default: []].append(line)
        }
        return index
    }

    /// The lines whose name normalizes to `key`, in file order, without building the index: an
    /// ASCII name is compared on its bytes, folded as `DomainName.normalized` folds it.
    private func lines(named key: String) -> [Range<Int>] {
        let target = Array(key.utf8)
        var found: [Range<Int>] = []
        forEachRecordLine { name, line in
            let same =
                DomainName.asciiName(bytes[name], normalizesTo: target)
                ?? (DomainName.normalized(String(decoding: bytes[name], as: UTF8.self)) == key)
            if same { found.append(line) }
        }
        return found
    }

    /// The record text of the line at `range`, or nil when it is too long or does not parse.
    private func text(of range: Range<Int>) -> String? {
        guard range.count <= Self.maxLineLength else { return nil }
        return Self.parse(Array(bytes[range]))?.text
    }

    private static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    /// The index of the first CR or LF at or after `start`, or the end: memchr finds the LF,
    /// then the CR before it, if any (a loop over every byte cost a filter run 0.4 million
    /// instructions on a keys file of 33 KB).
    private static func lineEnd(_ bytes: [UInt8], from start: Int) -> Int {
        bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int in
            guard let base = buffer.baseAddress, start < buffer.count else { return buffer.count }
            var lineFeed = buffer.count
            if let found = memchr(base + start, 0x0A, buffer.count - start) { lineFeed = base.distance(to: found) }
            if let found = memchr(base + start, 0x0D, lineFeed - start) { return base.distance(to: found) }
            return lineFeed
        }
    }

    /// The first index from `start` that is not a blank, or `end`.
    private static func skippingBlanks(_ bytes: [UInt8], from start: Int, to end: Int) -> Int {
        var cursor = start
        while cursor < end, isBlank(bytes[cursor]) { cursor += 1 }
        return cursor
    }

    /// The end of the word at `start`: the next blank or quote, or `end`.
    private static func wordEnd(_ bytes: [UInt8], from start: Int, to end: Int) -> Int {
        var cursor = start
        while cursor < end, !isBlank(bytes[cursor]), bytes[cursor] != UInt8(ascii: "\"") { cursor += 1 }
        return cursor
    }

    /// `NAME [TTL] [class] TXT strings`, or nil.
    static func parse(_ line: [UInt8]) -> (name: String, text: String)? {
        var cursor = 0
        func word() -> String? {
            let start = skippingBlanks(line, from: cursor, to: line.count)
            cursor = wordEnd(line, from: start, to: line.count)
            return cursor > start ? String(decoding: line[start..<cursor], as: UTF8.self) : nil
        }
        guard let name = word() else { return nil }
        // Optional TTL and class before the type (RFC 1035 §5.1 allows either order).
        var type: String?
        for _ in 0..<3 {
            guard let token = word() else { return nil }
            let upper = token.uppercased()
            if upper == "TXT" {
                type = upper
                break
            }
            if upper == "IN" || upper.allSatisfy({ $0.isASCII && $0.isNumber }) { continue }
            return nil
        }
        guard type != nil else { return nil }
        var text: [UInt8] = []
        var strings = 0
        while true {
            cursor = skippingBlanks(line, from: cursor, to: line.count)
            guard cursor < line.count else { break }
            if line[cursor] == UInt8(ascii: ";") { break }  // trailing comment
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
                if b == UInt8(ascii: "\"") {
                    closed = true
                    cursor += 1
                    break
                }
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
        guard let value = ASCII.decimal(line, from: index, count: 3) else { return nil }
        return value <= 255 ? UInt8(value) : nil
    }
}
