import Foundation
import Glibc
import ReservoirBase
import Testing

@Suite struct FileBytesTests {
    /// A new file in a new directory, removed when the test ends.
    static func withFile<T>(_ bytes: [UInt8], _ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("file").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return try body(path)
    }

    static func payload(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    }

    @Test(
        "a file read whole, at sizes around the first read's",
        arguments: [0, 1, 4095, FileBytes.readChunk - 1, FileBytes.readChunk, FileBytes.readChunk + 1, 300_001])
    func wholeFile(size: Int) throws {
        let payload = Self.payload(size)
        #expect(try Self.withFile(payload) { try FileBytes.read($0) } == payload)
    }

    @Test("a limit cuts the content and reads no further", arguments: [0, 1, 1000, FileBytes.readChunk + 5, 200_000, 250_000])
    func limit(limit: Int) throws {
        let payload = Self.payload(200_000)
        #expect(try Self.withFile(payload) { try FileBytes.read($0, limit: limit) } == Array(payload.prefix(limit)))
    }

    @Test func missingFile() {
        #expect(throws: FileReadError(code: ENOENT)) { try FileBytes.read("/nonexistent/reservoir-test-file") }
    }

    @Test func directoryIsNotAFile() {
        #expect(throws: FileReadError(code: EISDIR)) { try FileBytes.read(NSTemporaryDirectory()) }
    }

    @Test func errorTextIsTheSystemsWords() {
        #expect(FileReadError(code: ENOENT).description == String(cString: strerror(ENOENT)))
    }

    @Test("a pipe larger than one read, read to its end")
    func pipeRoundTripLargerThanOneRead() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let payload = Self.payload(FileBytes.readChunk * 2 + 17)
        let writeEnd = fds[1]
        let writer = Thread {
            payload.withUnsafeBytes { buffer in
                var written = 0
                while written < buffer.count {
                    let n = write(writeEnd, buffer.baseAddress! + written, buffer.count - written)
                    if n <= 0 { break }
                    written += n
                }
            }
            close(writeEnd)
        }
        writer.start()
        let read = try FileBytes.readAll(fds[0], sizeHint: 0)
        close(fds[0])
        #expect(read == payload)
    }

    @Test("readUpTo stops at its count, and returns less only at the end")
    func readUpTo() throws {
        let payload = Self.payload(10_000)
        try Self.withFile(payload) { path throws -> Void in
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            #expect(try FileBytes.readUpTo(fd, 0) == [])
            #expect(try FileBytes.readUpTo(fd, 4000) == Array(payload[0..<4000]))
            #expect(try FileBytes.readUpTo(fd, 8000) == Array(payload[4000...]))
            #expect(try FileBytes.readUpTo(fd, 10) == [])
        }
    }
}
