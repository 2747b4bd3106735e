import CZlib

/// One file of an archive: its name as the central directory writes it, and its bytes, or why
/// they could not be read.
public struct ZipEntry: Sendable {
    /// The name, read as UTF-8 (APPNOTE 4.4.4 bit 11; a CP437 name reads with replacement characters).
    public var name: String
    /// The uncompressed bytes; nil when the entry was not read (see the archive's diagnostics).
    public var data: [UInt8]?
    /// A directory entry (its name ends with "/"), which holds no file.
    public var isDirectory: Bool { name.hasSuffix("/") }
}

/// A zip archive read from memory (PKWARE APPNOTE 6.3): the central directory, then each entry
/// through its local header, stored or raw deflate (inflated by zlib), its CRC-32 checked.
///
/// Never throws or traps: what cannot be read is a ``ZipDiagnostic``. The central directory is
/// the one list of entries; data is found through each entry's local header, whose name must be
/// the directory's. An entry is inflated only into a buffer of the size the directory declares,
/// under ``ZipLimits``, so a lying directory cannot make it grow.
public struct ZipArchive: Sendable {
    public var entries: [ZipEntry]
    public var diagnostics: [ZipDiagnostic]

    /// Whether every entry was read.
    public var isComplete: Bool { diagnostics.isEmpty }

    /// The bytes of the entry called `name`; nil when there is none or it was not read.
    public func data(named name: String) -> [UInt8]? {
        entries.first { $0.name == name }?.data
    }

    // APPNOTE 4.3.7, 4.3.12, 4.3.16: the three record signatures.
    static let localHeaderSignature: UInt32 = 0x0403_4B50
    static let centralHeaderSignature: UInt32 = 0x0201_4B50
    static let endSignature: UInt32 = 0x0605_4B50

    /// The archive in `bytes`.
    public static func read(_ bytes: [UInt8]) -> ZipArchive {
        var reader = ZipArchive(entries: [], diagnostics: [])
        reader.readAll(ByteView(bytes))
        return reader
    }

    private struct DirectoryEntry {
        var name: String
        var flags: UInt16
        var method: UInt16
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var localOffset: Int
    }

    private mutating func readAll(_ bytes: ByteView) {
        guard let end = Self.findEnd(bytes) else {
            diagnostics.append(ZipDiagnostic(.zipNoDirectory, "no end of central directory record: the archive is truncated or not a zip"))
            return
        }
        let disk = bytes.u16(end + 4)
        let directoryDisk = bytes.u16(end + 6)
        let count = Int(bytes.u16(end + 10))
        let directorySize = Int(bytes.u32(end + 12))
        let directoryOffset = Int(bytes.u32(end + 16))
        // APPNOTE 4.4.1.4: 0xFFFF and 0xFFFFFFFF say the values are in a ZIP64 record.
        if disk != 0 || directoryDisk != 0 || count == 0xFFFF || directoryOffset == 0xFFFF_FFFF {
            diagnostics.append(ZipDiagnostic(.zipUnsupported, "a multi-disk or ZIP64 archive"))
            return
        }
        guard count <= ZipLimits.maxEntries else {
            diagnostics.append(ZipDiagnostic(.zipTooManyEntries, "\(count) entries, more than \(ZipLimits.maxEntries)"))
            return
        }
        guard directoryOffset <= end, directorySize <= end - directoryOffset else {
            diagnostics.append(ZipDiagnostic(.zipNoDirectory, "the central directory lies outside the archive: it is truncated"))
            return
        }
        var directory: [DirectoryEntry] = []
        var position = directoryOffset
        for _ in 0..<count {
            guard position + 46 <= directoryOffset + directorySize, bytes.u32(position) == Self.centralHeaderSignature else {
                diagnostics.append(ZipDiagnostic(.zipNoDirectory, "the central directory ends before its \(count) entries"))
                return
            }
            let nameLength = Int(bytes.u16(position + 28))
            let extraLength = Int(bytes.u16(position + 30))
            let commentLength = Int(bytes.u16(position + 32))
            let next = position + 46 + nameLength + extraLength + commentLength
            guard next <= directoryOffset + directorySize else {
                diagnostics.append(ZipDiagnostic(.zipNoDirectory, "a central directory entry runs past the directory"))
                return
            }
            directory.append(
                DirectoryEntry(
                    name: String(decoding: bytes.slice(position + 46, nameLength), as: UTF8.self), flags: bytes.u16(position + 8),
                    method: bytes.u16(position + 10), crc: bytes.u32(position + 16), compressedSize: Int(bytes.u32(position + 20)),
                    size: Int(bytes.u32(position + 24)), localOffset: Int(bytes.u32(position + 42))))
            position = next
        }
        var counts: [String: Int] = [:]
        for entry in directory { counts[entry.name, default: 0] += 1 }
        var budget = ZipLimits.maxTotalBytes
        for entry in directory {
            var read = ZipEntry(name: entry.name, data: nil)
            if counts[entry.name, default: 0] > 1 {
                diagnostics.append(ZipDiagnostic(.zipDuplicateName, "\(entry.name) is in the archive more than once"))
            } else if let problem = Self.check(entry, budget: budget) {
                diagnostics.append(problem)
            } else {
                switch Self.extract(entry, from: bytes) {
                case .success(let data):
                    read.data = data
                    budget -= data.count
                case .failure(let problem): diagnostics.append(problem)
                }
            }
            entries.append(read)
        }
    }

    /// Why an entry is not inflated at all, from its directory record alone.
    private static func check(_ entry: DirectoryEntry, budget: Int) -> ZipDiagnostic? {
        if entry.flags & 1 != 0 { return ZipDiagnostic(.zipUnsupported, "\(entry.name) is encrypted") }
        if entry.method != 0, entry.method != 8 {
            return ZipDiagnostic(.zipUnsupported, "\(entry.name) uses compression method \(entry.method), not stored or deflate")
        }
        if entry.size == 0xFFFF_FFFF || entry.compressedSize == 0xFFFF_FFFF || entry.localOffset == 0xFFFF_FFFF {
            return ZipDiagnostic(.zipUnsupported, "\(entry.name) has ZIP64 sizes")
        }
        if entry.size > ZipLimits.maxEntryBytes {
            return ZipDiagnostic(.zipTooLarge, "\(entry.name) holds \(entry.size) bytes, more than \(ZipLimits.maxEntryBytes)")
        }
        if entry.size > budget {
            return ZipDiagnostic(.zipTooLarge, "\(entry.name) would take the archive past \(ZipLimits.maxTotalBytes) bytes")
        }
        if entry.size > ZipLimits.ratioExemptBytes, entry.size / max(entry.compressedSize, 1) > ZipLimits.maxCompressionRatio {
            return ZipDiagnostic(
                .zipBomb, "\(entry.name) inflates \(entry.compressedSize) bytes to \(entry.size), more than \(ZipLimits.maxCompressionRatio):1")
        }
        return nil
    }

    /// The entry's bytes through its local header (APPNOTE 4.3.7): inflated or stored, size and
    /// CRC-32 as the directory says.
    private static func extract(_ entry: DirectoryEntry, from bytes: ByteView) -> Result<[UInt8], ZipDiagnostic> {
        let local = entry.localOffset
        guard local <= bytes.count - 30, bytes.u32(local) == localHeaderSignature else {
            return .failure(ZipDiagnostic(.zipCorrupt, "\(entry.name): no local header where the directory points"))
        }
        let nameLength = Int(bytes.u16(local + 26))
        let extraLength = Int(bytes.u16(local + 28))
        let start = local + 30 + nameLength + extraLength
        guard start <= bytes.count, entry.compressedSize <= bytes.count - start else {
            return .failure(ZipDiagnostic(.zipCorrupt, "\(entry.name): the data runs past the end of the archive"))
        }
        guard String(decoding: bytes.slice(local + 30, nameLength), as: UTF8.self) == entry.name else {
            return .failure(ZipDiagnostic(.zipCorrupt, "\(entry.name): the local header names another file"))
        }
        let compressed = bytes.slice(start, entry.compressedSize)
        let data: [UInt8]
        if entry.method == 0 {
            guard entry.compressedSize == entry.size else {
                return .failure(ZipDiagnostic(.zipCorrupt, "\(entry.name): a stored entry whose sizes differ"))
            }
            data = Array(compressed)
        } else {
            guard let inflated = inflate(compressed, size: entry.size) else {
                return .failure(ZipDiagnostic(.zipCorrupt, "\(entry.name): the data does not inflate to \(entry.size) bytes"))
            }
            data = inflated
        }
        let crc = data.withUnsafeBufferPointer { buffer in
            UInt32(truncatingIfNeeded: crc32(0, buffer.baseAddress, uInt(buffer.count)))
        }
        guard crc == entry.crc else { return .failure(ZipDiagnostic(.zipCorrupt, "\(entry.name): CRC-32 mismatch")) }
        return .success(data)
    }

    /// Raw deflate data inflated into exactly `size` bytes, or nil: data that is not deflate,
    /// that ends early, or that would inflate past `size`.
    static func inflate(_ compressed: ArraySlice<UInt8>, size: Int) -> [UInt8]? {
        // One byte more than declared: filling it means the entry is larger than it says.
        var output = [UInt8](repeating: 0, count: size + 1)
        var input = Array(compressed)
        var stream = z_stream()
        guard reservoir_inflate_init_raw(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer -> Int32 in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, Int(stream.total_out) == size else { return nil }
        output.removeLast()
        return output
    }

    /// The offset of the end of central directory record, searched back from the end.
    private static func findEnd(_ bytes: ByteView) -> Int? {
        guard bytes.count >= 22 else { return nil }
        let lowest = max(0, bytes.count - ZipLimits.endSearchBytes)
        var position = bytes.count - 22
        while position >= lowest {
            if bytes.u32(position) == endSignature { return position }
            position -= 1
        }
        return nil
    }
}

/// Little-endian reads at offsets the caller has bounds-checked (APPNOTE 4.4: every value is
/// little-endian); past the end they read zero bytes.
struct ByteView {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var count: Int { bytes.count }

    func u16(_ offset: Int) -> UInt16 {
        UInt16(byte(offset)) | UInt16(byte(offset + 1)) << 8
    }

    func u32(_ offset: Int) -> UInt32 {
        UInt32(u16(offset)) | UInt32(u16(offset + 2)) << 16
    }

    func slice(_ offset: Int, _ length: Int) -> ArraySlice<UInt8> {
        let start = min(max(offset, 0), bytes.count)
        return bytes[start..<min(start + max(length, 0), bytes.count)]
    }

    private func byte(_ offset: Int) -> UInt8 {
        offset >= 0 && offset < bytes.count ? bytes[offset] : 0
    }
}
