import CZlib

/// Writes zip archives for tests (PKWARE APPNOTE 6.3): stored or deflated entries, with the
/// sizes the central directory declares open to lies, for the reader's limits.
public enum ZipWriter {
    public struct Entry {
        public var name: String
        public var data: [UInt8]
        public var deflate: Bool
        /// The uncompressed size the directory and local header declare, when not the true one.
        public var declaredSize: Int?

        public init(_ name: String, _ data: [UInt8], deflate: Bool = true, declaredSize: Int? = nil) {
            self.name = name
            self.data = data
            self.deflate = deflate
            self.declaredSize = declaredSize
        }
    }

    public static func archive(_ entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        var directory: [UInt8] = []
        for entry in entries {
            let name = Array(entry.name.utf8)
            let body = entry.deflate ? deflate(entry.data) : entry.data
            let crc = entry.data.withUnsafeBufferPointer { UInt32(truncatingIfNeeded: crc32(0, $0.baseAddress, uInt($0.count))) }
            let size = UInt32(entry.declaredSize ?? entry.data.count)
            let method: UInt16 = entry.deflate ? 8 : 0
            let offset = UInt32(out.count)
            out += le32(0x0403_4B50) + le16(20) + le16(0x0800) + le16(method) + le16(0) + le16(0x21) + le32(crc)
            out += le32(UInt32(body.count)) + le32(size) + le16(UInt16(name.count)) + le16(0) + name + body
            directory += le32(0x0201_4B50) + le16(20) + le16(20) + le16(0x0800) + le16(method) + le16(0) + le16(0x21) + le32(crc)
            directory += le32(UInt32(body.count)) + le32(size) + le16(UInt16(name.count)) + le16(0) + le16(0) + le16(0) + le16(0)
            directory += le32(0) + le32(offset) + name
        }
        let directoryOffset = UInt32(out.count)
        out += directory
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(entries.count)) + le16(UInt16(entries.count))
        out += le32(UInt32(directory.count)) + le32(directoryOffset) + le16(0)
        return out
    }

    /// Raw deflate (no zlib wrapper), as zip stores it.
    public static func deflate(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard reservoir_deflate_init_raw(&stream, 9) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var input = data
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        let produced = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer -> Int in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END ? Int(stream.total_out) : 0
            }
        }
        return Array(output.prefix(produced))
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { le16(UInt16(value & 0xFFFF)) + le16(UInt16(value >> 16)) }
}
