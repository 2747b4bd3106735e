import DKIM
import MIME
import Pipeline

@testable import Output

/// The forged-field scanner and the stream built on it. The first byte chooses the size of the
/// pieces the rest is fed in. Never traps; the pieces give the same removals as the whole
/// input; the removals are whole lines (ended by LF or by a bare CR), in order, apart; the
/// stream's output is the input less exactly the removed bytes, with the body (as an LF reader
/// ends the header) unchanged; the output has nothing left to remove; and no reader of it finds
/// a field of ours, whether it ends lines at LF only or at CR, LF and CRLF (Python's `email`),
/// nor once it decodes the field's RFC 2047 encoded words and unquotes the authserv-id
/// (``decodedAuthservID(_:)``, a reader written apart from the scanner's).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let pieceSize = [1, 2, 3, 7, 64, 4096][Int(data[0]) % 6]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let id = "mx.example"
    let whole = ForgedFieldScanner.find(in: bytes, authservID: id)

    var scanner = ForgedFieldScanner(authservID: id)
    var stream = ForgedFieldStream(authservID: id)
    var output: [UInt8] = []
    let emit: (UnsafeBufferPointer<UInt8>) -> Bool = {
        output += $0
        return true
    }
    bytes.withUnsafeBufferPointer { buffer in
        var start = 0
        while start < buffer.count {
            let piece = UnsafeBufferPointer(rebasing: buffer[start..<min(buffer.count, start + pieceSize)])
            let before = scanner.settled
            scanner.scan(piece)
            precondition(scanner.settled <= scanner.consumed && scanner.settled >= before, "settled moved back")
            _ = stream.push(piece, emit: emit)
            start += piece.count
        }
    }
    scanner.finish()
    _ = stream.finish(emit: emit)
    precondition(scanner.result == whole, "pieces of \(pieceSize) differ from the whole")

    var expected: [UInt8] = []
    var cursor = 0
    var removed = 0
    func isBareCR(_ i: Int) -> Bool { i >= 0 && i < bytes.count && bytes[i] == 0x0D && (i + 1 == bytes.count || bytes[i + 1] != 0x0A) }
    for removal in whole.removals {
        let (lower, upper) = (removal.lowerBound, removal.upperBound)
        precondition(lower >= cursor && lower < upper && upper <= bytes.count, "bounds")
        precondition(lower == 0 || bytes[lower - 1] == 0x0A || isBareCR(lower - 1), "a removal starts mid-line")
        expected += bytes[cursor..<lower]
        // A removal after a kept bare CR keeps the LF of its line: the CR and it stay one line end.
        let keepsLineEnd = upper < bytes.count && bytes[upper] == 0x0A && expected.last == 0x0D
        precondition(upper == bytes.count || bytes[upper - 1] == 0x0A || isBareCR(upper - 1) || keepsLineEnd, "a removal ends mid-line")
        precondition(bytes[lower] != 0x20 && bytes[lower] != 0x09, "a removal starts with a continuation")
        removed += removal.count
        cursor = upper
    }
    expected += bytes[cursor...]
    precondition(output == expected, "the stream's output is not the input less the removals")
    precondition(output.count == bytes.count - removed)
    precondition(whole.insertionPoint <= bytes.count)
    precondition(body(output) == body(bytes), "the body changed")
    precondition(ForgedFieldScanner.find(in: output, authservID: id).removals.isEmpty, "something left to remove")
    for splitsAtCR in [false, true] {
        if let found = fieldOfOurs(output, splitsAtCR: splitsAtCR, id: id) {
            preconditionFailure("\(found) left for a reader that ends lines at \(splitsAtCR ? "CR, LF and CRLF" : "LF")")
        }
    }
    return 0
}

/// What follows the header as an LF reader ends it: after the first line that is empty or a
/// lone CR; nil without one.
func body(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
    var lineStart = 0
    while lineStart < bytes.count {
        if bytes[lineStart] == 0x0A { return bytes[(lineStart + 1)...] }
        if bytes[lineStart] == 0x0D, lineStart + 1 < bytes.count, bytes[lineStart + 1] == 0x0A { return bytes[(lineStart + 2)...] }
        guard let lf = bytes[lineStart...].firstIndex(of: 0x0A) else { return nil }
        lineStart = lf + 1
    }
    return nil
}

/// The first field of ours a lenient reader finds in the header: lines end at LF (a CR before
/// it dropped), or with `splitsAtCR` at CRLF, CR and LF; the header ends at the first empty
/// line; a line starting with white space continues the field before it; a line without a
/// colon is skipped; the name is what comes before the colon, less CR before it and white
/// space and CR after it. Ours: `X-Reservation`, `X-Reservoir-Error`, and
/// `Authentication-Results` whose value claims `id`.
func fieldOfOurs(_ bytes: [UInt8], splitsAtCR: Bool, id: String) -> String? {
    var results: [UInt8]?  // the value of the Authentication-Results field being read
    func decide() -> String? {
        defer { results = nil }
        guard let value = results, AuthenticationResultsPayload.claims(value, authservID: id) || decodedAuthservID(value) == id else {
            return nil
        }
        return "Authentication-Results:" + String(decoding: value, as: UTF8.self)
    }
    var start = 0
    while start <= bytes.count {
        // One line: up to LF, or CR too with `splitsAtCR`.
        var end = start
        while end < bytes.count, bytes[end] != 0x0A, !(splitsAtCR && bytes[end] == 0x0D) { end += 1 }
        var next = end + 1
        if end < bytes.count, bytes[end] == 0x0D, end + 1 < bytes.count, bytes[end + 1] == 0x0A { next += 1 }
        var contentEnd = end
        if end < bytes.count, bytes[end] == 0x0A, contentEnd > start, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
        let line = bytes[start..<contentEnd]
        if line.isEmpty { return decide() }
        if let first = line.first, first == 0x20 || first == 0x09 {
            results?.append(0x0A)
            results?.append(contentsOf: line)
        } else {
            if let found = decide() { return found }
            if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                var name = line[..<colon].drop { $0 == 0x0D }
                while let last = name.last, last == 0x20 || last == 0x09 || last == 0x0D { name = name.dropLast() }
                let lower = name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
                if lower.elementsEqual("x-reservation".utf8) || lower.elementsEqual("x-reservoir-error".utf8) {
                    return String(decoding: name, as: UTF8.self)
                }
                if lower.elementsEqual("authentication-results".utf8) { results = Array(line[(colon + 1)...]) }
            }
        }
        if end >= bytes.count { break }
        start = next
    }
    return decide()
}

/// The authserv-id a script reads from a field value once Python's `email` decoded it: encoded
/// words decoded (as `HeaderText` decodes a Subject), comments left out, the text before the
/// first `;`, its quoted-string or first word (split at Unicode white space, as `str.split()`),
/// lowercased.
func decodedAuthservID(_ value: [UInt8]) -> String {
    var depth = 0
    var text = ""
    for character in HeaderText.decode(value).text {
        if character == "(" {
            depth += 1
        } else if character == ")", depth > 0 {
            depth -= 1
        } else if depth == 0 {
            text.append(character)
        }
    }
    let head = (text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").drop { $0.isWhitespace }
    if head.first == "\"" {
        let quoted = head.dropFirst().prefix { $0 != "\"" }
        return String(quoted.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()).lowercased()
    }
    return String(head.prefix { !$0.isWhitespace }).lowercased()
}
