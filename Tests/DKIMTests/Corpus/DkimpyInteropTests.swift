import DNS
import Foundation
import MIME
import TestRequirements
import Testing

@testable import DKIM

/// Signs with dkimpy and verifies with us, and the other way round. Skipped when
/// `/usr/bin/python3` cannot `import dkim` (Debian python3-dkim).
@Suite struct DkimpyInteropTests {
    static let python = "/usr/bin/python3"

    static let script = """
        import sys, dkim
        mode, message_path, key_path = sys.argv[1], sys.argv[2], sys.argv[3]
        message = open(message_path, 'rb').read()
        key = open(key_path, 'rb').read()
        if mode == 'sign':
            header, body = sys.argv[5].encode().split(b'/')
            signature = dkim.sign(message, b'sel', b'example.com', key.strip(), canonicalize=(header, body),
                                  include_headers=[b'from', b'to', b'subject'], signature_algorithm=sys.argv[4].encode())
            sys.stdout.buffer.write(signature + message)
        else:
            ok = dkim.verify(message, dnsfunc=lambda name, timeout=5: key)
            print('pass' if ok else 'fail')
        """

    static let available: Bool = run(["-c", "import dkim"]) != nil

    static func run(_ arguments: [String]) -> Data? {
        guard FileManager.default.isExecutableFile(atPath: python) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? data : nil
    }

    static func temporary(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reservoir-dkimpy-\(UUID().uuidString)")
        try data.write(to: url)
        return url
    }

    /// dkimpy takes an Ed25519 private key as the base64 of its raw 32-byte seed: the last
    /// 32 bytes of the PKCS#8 DER.
    static func dkimpyKey(_ kind: DKIMRoundTripTests.KeyKind, pem: String) -> String? {
        guard kind == .ed25519 else { return pem }
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Base64.decode(body), der.count >= 32 else { return nil }
        return Base64.encode(der.suffix(32))
    }

    static let canonicalizations = ["simple/simple", "relaxed/relaxed", "relaxed/simple", "simple/relaxed"]

    @Test(
        .enabled(if: Requirement.met(available), "python3 cannot import dkim (install python3-dkim)"), arguments: DKIMRoundTripTests.KeyKind.allCases,
        canonicalizations)
    func dkimpySignsWeVerify(kind: DKIMRoundTripTests.KeyKind, c: String) throws {
        try #require(Self.available, "\(Self.python) cannot import dkim (install python3-dkim)")
        let pem = try #require(DKIMRoundTripTests.pem(kind))
        let signer = try DKIMSigner(privateKeyPEM: pem)
        let messageURL = try Self.temporary(Data(DKIMRoundTripTests.message(lf: false)))
        let keyURL = try Self.temporary(Data(try #require(Self.dkimpyKey(kind, pem: pem)).utf8))
        defer {
            try? FileManager.default.removeItem(at: messageURL)
            try? FileManager.default.removeItem(at: keyURL)
        }
        let algorithm = kind == .rsa ? "rsa-sha256" : "ed25519-sha256"
        let signed = try #require(Self.run(["-c", Self.script, "sign", messageURL.path, keyURL.path, algorithm, c]), "dkimpy failed to sign")
        let keys = KeysFile(text: "sel._domainkey.example.com TXT \"\(signer.publicKeyRecord())\"")
        let results = DKIMVerifier(resolver: keys, now: Int64(Date().timeIntervalSince1970)).verify(Message(bytes: [UInt8](signed)))
        #expect(results.count == 1)
        #expect(results.first?.result == .pass, "\(results.first?.reason ?? "")")
    }

    @Test(
        .enabled(if: Requirement.met(available), "python3 cannot import dkim (install python3-dkim)"),
        arguments: DKIMRoundTripTests.KeyKind.allCases, [DKIMCanonicalization.simpleSimple, .relaxedRelaxed, .simpleRelaxed, .relaxedSimple])
    func weSignDkimpyVerifies(kind: DKIMRoundTripTests.KeyKind, c: DKIMCanonicalization) throws {
        try #require(Self.available, "\(Self.python) cannot import dkim (install python3-dkim)")
        let pem = try #require(DKIMRoundTripTests.pem(kind))
        let signer = try DKIMSigner(privateKeyPEM: pem)
        let message = DKIMRoundTripTests.message(lf: false)
        let field = try signer.sign(
            message, domain: "example.com", selector: "sel", headers: ["From", "To", "Subject"],
            canonicalization: c, timestamp: Int64(Date().timeIntervalSince1970), expiration: nil)
        let messageURL = try Self.temporary(Data(Array(field.utf8) + message))
        let keyURL = try Self.temporary(Data(signer.publicKeyRecord().utf8))
        defer {
            try? FileManager.default.removeItem(at: messageURL)
            try? FileManager.default.removeItem(at: keyURL)
        }
        let verdict = try #require(Self.run(["-c", Self.script, "verify", messageURL.path, keyURL.path]), "dkimpy failed to run")
        #expect(String(decoding: verdict, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "pass")
    }
}
