import COpenSSL
import ReservoirBase

/// SHA-256 (FIPS 180-4) through OpenSSL's one-shot EVP interface.
public enum SHA256Digest {
    /// Length of a digest in bytes.
    public static let byteCount = 32

    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest fails only when OpenSSL cannot allocate its context.
        precondition(ok == 1 && Int(length) == byteCount, "EVP_Digest(SHA-256) failed")
        return Array(output.prefix(byteCount))
    }

    /// The digest as lowercase hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String {
        Hexadecimal.lowercase(digest(bytes))
    }
}
