/// One untagged response (RFC 9051 §7): its text with every literal taken out (the `{N}` left
/// in place), and the literals' bytes in order.
struct IMAPUntagged: Equatable {
    var text: [UInt8]
    var literals: [[UInt8]]

    /// The words of the text, split at spaces and parentheses (enough for the numbers and
    /// atoms this client reads: `UIDVALIDITY 7`, `UID 12`, `RFC822.SIZE 3311`).
    var words: [Substring] {
        String(decoding: text, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ")" || $0 == "[" || $0 == "]" })
    }

    /// The number after `name` among the words, case-insensitively (`UID 12`).
    func number(after name: String) -> Int64? {
        let words = self.words
        guard let index = words.firstIndex(where: { $0.uppercased() == name }), index + 1 < words.count else { return nil }
        return Self.number(words[index + 1])
    }

    /// A number (RFC 9051 §4.2: digits only, below 2^63 here).
    static func number(_ word: Substring) -> Int64? {
        guard !word.isEmpty, word.count <= 18, word.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(word)
    }
}

/// The end of a command: its tagged status (RFC 9051 §7.1).
enum IMAPStatus: Equatable {
    case ok
    case no(String)
    case bad(String)
}

/// Splits a server's bytes into lines and literals (RFC 9051 §4.3: `{N}` CRLF then N bytes),
/// within `IMAPLimits`. Fed in chunks; `next` returns a complete response when one is there.
struct IMAPResponseReader {
    private var buffer: [UInt8] = []
    private var start = 0
    /// The response being read: its text so far and its literals.
    private var partial = IMAPUntagged(text: [], literals: [])
    /// Bytes of a literal still to come, when reading one.
    private var literalLeft: Int?
    private var literal: [UInt8] = []
    /// The largest literal the current command allows.
    var literalLimit = IMAPLimits.otherLiteralBytes

    enum Item: Equatable {
        /// A complete response line, its literals with it: untagged (`*`), tagged, or `+`.
        case line(IMAPUntagged)
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete response, nil when more bytes are needed.
    mutating func next() throws(IMAPError) -> Item? {
        while true {
            if let left = literalLeft {
                let take = min(left, buffer.count - start)
                literal.append(contentsOf: buffer[start..<start + take])
                start += take
                if take < left {
                    literalLeft = left - take
                    return nil
                }
                partial.literals.append(literal)
                literal = []
                literalLeft = nil
            }
            guard let lineEnd = lineFeed() else {
                if buffer.count - start + partial.text.count > IMAPLimits.lineBytes {
                    throw IMAPError(.protocolViolation, "a response line longer than \(IMAPLimits.lineBytes) bytes")
                }
                compact()
                return nil
            }
            var line = buffer[start..<lineEnd]
            start = lineEnd + 1
            if line.last == 0x0D { line = line.dropLast() }
            guard partial.text.count + line.count <= IMAPLimits.lineBytes else {
                throw IMAPError(.protocolViolation, "a response line longer than \(IMAPLimits.lineBytes) bytes")
            }
            partial.text.append(contentsOf: line)
            // A line ending in {N} announces N bytes that follow its CRLF (RFC 9051 §4.3).
            if let size = Self.literalSize(partial.text) {
                guard size <= literalLimit else {
                    throw IMAPError(.protocolViolation, "a literal of \(size) bytes, over the limit of \(literalLimit)")
                }
                literalLeft = size
                literal.reserveCapacity(size)
                continue
            }
            let complete = partial
            partial = IMAPUntagged(text: [], literals: [])
            compact()
            return .line(complete)
        }
    }

    private func lineFeed() -> Int? {
        buffer[start...].firstIndex(of: 0x0A)
    }

    private mutating func compact() {
        if start > IMAPLimits.readChunkBytes {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// N when the text ends with `{N}` (or `{N+}`, RFC 7888), nil otherwise.
    static func literalSize(_ text: [UInt8]) -> Int? {
        guard text.last == UInt8(ascii: "}"), let open = text.lastIndex(of: UInt8(ascii: "{")) else { return nil }
        var digits = text[(open + 1)..<(text.count - 1)]
        if digits.last == UInt8(ascii: "+") { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        // Too many digits for a number: past every limit, refused as such.
        guard let number = IMAPUntagged.number(Substring(decoding: digits, as: UTF8.self)) else { return Int.max }
        return Int(number)
    }
}
