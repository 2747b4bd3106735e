import COpenSSL

/// OpenSSL's one-time set-up, done before the first OpenSSL call of the process: without the
/// system configuration file, error strings or the global tables of algorithm names (see
/// `reservoir_openssl_init`). Every type that calls OpenSSL first reads `ready`.
enum OpenSSLLibrary {
    static let ready: Bool = reservoir_openssl_init() == 1
}
