import Pipeline

@testable import Output

/// The forged-field scanner and the stream built on it. The first byte chooses the size of the
/// pieces the rest is fed in. Never traps; the pieces give the same removals as the whole
/// input; the removals are whole lines, in order, apart; the stream's output is the input less
/// exactly the removed bytes; and the output has nothing left to remove.
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
            scanner.scan(piece)
            precondition(scanner.settled <= scanner.consumed)
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
    for removal in whole.removals {
        precondition(removal.lowerBound >= cursor && removal.lowerBound < removal.upperBound && removal.upperBound <= bytes.count, "bounds")
        precondition(removal.lowerBound == 0 || bytes[removal.lowerBound - 1] == 0x0A, "a removal starts mid-line")
        precondition(removal.upperBound == bytes.count || bytes[removal.upperBound - 1] == 0x0A, "a removal ends mid-line")
        precondition(bytes[removal.lowerBound] != 0x20 && bytes[removal.lowerBound] != 0x09, "a removal starts with a continuation")
        expected += bytes[cursor..<removal.lowerBound]
        removed += removal.count
        cursor = removal.upperBound
    }
    expected += bytes[cursor...]
    precondition(output == expected, "the stream's output is not the input less the removals")
    precondition(output.count == bytes.count - removed)
    precondition(whole.insertionPoint <= bytes.count)
    precondition(ForgedFieldScanner.find(in: output, authservID: id).removals.isEmpty, "something left to remove")
    return 0
}
