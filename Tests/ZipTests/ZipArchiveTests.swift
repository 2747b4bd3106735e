import PassTestSupport
import Testing

@testable import Zip

/// The zip reader on archives the tests write: stored and deflated entries, and each limit and
/// damage reported by its code, never a trap.
@Suite("Zip: the archive reader")
struct ZipArchiveTests {
    static let text = Array(String(repeating: "pass.json holds the fields. ", count: 40).utf8)

    @Test("stored and deflated entries read back whole")
    func roundTrip() {
        let archive = ZipArchive.read(
            ZipWriter.archive([ZipWriter.Entry("a.txt", Self.text), ZipWriter.Entry("dir/b.bin", [0, 1, 2, 255], deflate: false)]))
        #expect(archive.isComplete)
        #expect(archive.data(named: "a.txt") == Self.text)
        #expect(archive.data(named: "dir/b.bin") == [0, 1, 2, 255])
    }

    @Test("a truncated archive has no directory; every cut reads without a trap")
    func truncated() {
        let bytes = ZipWriter.archive([ZipWriter.Entry("a.txt", Self.text), ZipWriter.Entry("b.txt", Self.text)])
        #expect(ZipArchive.read(Array(bytes.dropLast(30))).diagnostics.first?.code == .zipNoDirectory)
        for end in 0..<bytes.count {
            let archive = ZipArchive.read(Array(bytes[0..<end]))
            #expect(!archive.isComplete || archive.entries.allSatisfy { $0.data != nil })
        }
    }

    @Test("a zip bomb is refused by its ratio before it is inflated")
    func bomb() {
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        let archive = ZipArchive.read(ZipWriter.archive([ZipWriter.Entry("bomb.png", zeros)]))
        #expect(archive.diagnostics.map(\.code) == [.zipBomb])
        #expect(archive.entries.first?.data == nil)
    }

    @Test("an entry larger than the limit is not inflated")
    func tooLarge() {
        let archive = ZipArchive.read(ZipWriter.archive([ZipWriter.Entry("big", [1, 2, 3], declaredSize: ZipLimits.maxEntryBytes + 1)]))
        #expect(archive.diagnostics.map(\.code) == [.zipTooLarge])
    }

    @Test("an entry that inflates past its declared size is corrupt, and inflation stops there")
    func lyingSize() {
        let archive = ZipArchive.read(ZipWriter.archive([ZipWriter.Entry("a.txt", Self.text, declaredSize: 10)]))
        #expect(archive.diagnostics.map(\.code) == [.zipCorrupt])
    }

    @Test("two entries with one name: neither is read")
    func duplicates() {
        let archive = ZipArchive.read(ZipWriter.archive([ZipWriter.Entry("pass.json", [1]), ZipWriter.Entry("pass.json", [2])]))
        #expect(archive.diagnostics.map(\.code) == [.zipDuplicateName, .zipDuplicateName])
        #expect(archive.data(named: "pass.json") == nil)
    }

    @Test("a changed byte in the data fails its CRC-32 or its inflation")
    func corrupted() {
        var bytes = ZipWriter.archive([ZipWriter.Entry("a.bin", Self.text, deflate: false)])
        bytes[40] ^= 0x20
        #expect(ZipArchive.read(bytes).diagnostics.map(\.code) == [.zipCorrupt])
    }

    @Test("more entries than the limit: nothing is read")
    func tooManyEntries() {
        let entries = (0...ZipLimits.maxEntries).map { ZipWriter.Entry("f\($0)", [1], deflate: false) }
        #expect(ZipArchive.read(ZipWriter.archive(entries)).diagnostics.map(\.code) == [.zipTooManyEntries])
    }
}
