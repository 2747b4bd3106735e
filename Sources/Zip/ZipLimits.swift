/// What the zip reader accepts. A Wallet pass is a few dozen small files (pass.json, the
/// manifest, its signature, images at three scales, localizations); each limit is far past a
/// real pass and stops a zip bomb before it costs memory or time. Hitting one is a
/// ``ZipDiagnostic``, never a trap.
public enum ZipLimits {
    /// Entries in the central directory; more and the archive is not read.
    public static let maxEntries = 512
    /// Uncompressed bytes of one entry; a larger entry is not inflated.
    public static let maxEntryBytes = 8 << 20
    /// Uncompressed bytes of all entries together; entries past it are not inflated.
    public static let maxTotalBytes = 32 << 20
    /// Uncompressed bytes per compressed byte past which an entry is a zip bomb. Deflate reaches
    /// about 1,030:1 on a run of one byte; images and JSON stay far below 100:1.
    public static let maxCompressionRatio = 100
    /// Entries up to this size are exempt from the ratio: a small file of spaces compresses well
    /// and costs nothing.
    public static let ratioExemptBytes = 64 << 10
    /// Bytes searched back from the end for the end of central directory record: its 22 bytes
    /// and the longest comment (APPNOTE 4.3.16).
    public static let endSearchBytes = 22 + 0xFFFF
}
