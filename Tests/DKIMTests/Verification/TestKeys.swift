import Foundation

/// Private keys generated with `openssl genpkey` at test time, once per run.
enum TestKeys {
    static func generate(_ arguments: [String]) -> String? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reservoir-dkim-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("key.pem")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "genpkey"] + arguments + ["-out", output.path]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return try? String(contentsOf: output, encoding: .utf8)
    }

    static let rsa2048 = generate(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
    static let ed25519 = generate(["-algorithm", "ED25519"])
    static let rsa512 = generate(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:512"])
    static let rsa768 = generate(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:768"])
    static let rsa1024 = generate(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
    static let rsa3072 = generate(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:3072"])
}
