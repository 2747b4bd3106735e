import COpenSSL
import Glibc
import ReservoirBase

/// The certificates a pass's signer must chain to (`--pass-ca`, PEM files), read on first use:
/// a message without a pass never opens them. Shared by a scan's worker pipelines.
public final class PassTrustAnchors: @unchecked Sendable {
    /// A PEM file of CA certificates is a few KB; refuse anything far larger.
    public static let maxFileBytes = 1 << 20

    public let paths: [String]
    // Guards `loaded`; the X509 references are owned here and freed in deinit.
    private var lock = pthread_mutex_t()
    private var loaded: Result<[OpaquePointer], PassVerificationFailure>?

    public init(paths: [String]) {
        self.paths = paths
        pthread_mutex_init(&lock, nil)
    }

    deinit {
        if case .success(let certificates) = loaded { Self.free(certificates) }
        pthread_mutex_destroy(&lock)
    }

    /// The anchors as OpenSSL certificates, valid while this object lives.
    func certificates() -> Result<[OpaquePointer], PassVerificationFailure> {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        if let loaded { return loaded }
        let result = Self.load(paths)
        loaded = result
        return result
    }

    private static func free(_ certificates: [OpaquePointer]) {
        for certificate in certificates { X509_free(certificate) }
    }

    private static func load(_ paths: [String]) -> Result<[OpaquePointer], PassVerificationFailure> {
        guard !paths.isEmpty else { return .failure(.noAnchors) }
        guard PassSignatureVerifier.ready else { return .failure(.anchorsUnreadable(paths[0])) }
        var certificates: [OpaquePointer] = []
        for path in paths {
            guard let bytes = try? FileBytes.read(path, limit: maxFileBytes) else {
                free(certificates)
                return .failure(.anchorsUnreadable(path))
            }
            let before = certificates.count
            bytes.withUnsafeBytes { buffer in
                guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return }
                defer { BIO_free(bio) }
                while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) { certificates.append(certificate) }
            }
            ERR_clear_error()
            if certificates.count == before {
                free(certificates)
                return .failure(.anchorsUnreadable(path))
            }
        }
        return .success(certificates)
    }
}
