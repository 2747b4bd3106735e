import DKIM
import Pipeline

@testable import Output

/// The forged-field scanner and the stream built on it. The first byte chooses the size of the
/// pieces the rest is fed in. Never traps; the pieces give the same removals as the whole
/// input; the removals are whole lines (ended by LF or by a bare CR), in order, apart; the
/// stream's output is the input less exactly the removed bytes, with the body (as an LF reader
/// ends the header) unchanged; the output has nothing left to remove; and no reader of it finds
/// a field of ours, whether it ends lines at LF only or at CR, LF and CRLF (Python's `email`).
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
        for field in fields(output, splitsAtCR: splitsAtCR) {
            let name = field.name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
            precondition(!name.elementsEqual("x-reservation".utf8) && !name.elementsEqual("x-reservoir-error".utf8), "a field of ours left")
            precondition(
                !name.elementsEqual("authentication-results".utf8) || !AuthenticationResultsPayload.claims(field.value, authservID: id),
                "a result claiming our id left (lines ended at CR: \(splitsAtCR))")
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

/// The header fields as a lenient reader reads them: lines end at LF (a CR before it dropped),
/// or with `splitsAtCR` at CRLF, CR and LF; the header ends at the first empty line; a line
/// starting with white space continues the field before it; a line without a colon is skipped;
/// the name is what comes before the colon, less CR before it and white space and CR after it.
func fields(_ bytes: [UInt8], splitsAtCR: Bool) -> [(name: [UInt8], value: [UInt8])] {
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    var i = 0
    while i < bytes.count {
        if bytes[i] == 0x0A || (splitsAtCR && bytes[i] == 0x0D) {
            var end = i
            if bytes[i] == 0x0A, end > start, bytes[end - 1] == 0x0D { end -= 1 }
            lines.append(bytes[start..<end])
            if bytes[i] == 0x0D, i + 1 < bytes.count, bytes[i + 1] == 0x0A { i += 1 }
            start = i + 1
        }
        i += 1
    }
    if start < bytes.count { lines.append(bytes[start...]) }
    var result: [(name: [UInt8], value: [UInt8])] = []
    var open = false
    for line in lines {
        if line.isEmpty { break }
        if let first = line.first, first == 0x20 || first == 0x09 {
            if open, let last = result.indices.last { result[last].value += [0x0A] + line }
            continue
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            open = false
            continue
        }
        var name = Array(line[..<colon].drop { $0 == 0x0D })
        while let last = name.last, last == 0x20 || last == 0x09 || last == 0x0D { name.removeLast() }
        result.append((name, Array(line[(colon + 1)...])))
        open = true
    }
    return result
}
