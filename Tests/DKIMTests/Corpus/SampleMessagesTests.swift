import DKIM
import DNS
import Foundation
import MIME
import TestRequirements
import Testing

/// The project's own sample messages (`scripts/samples/*.eml`, bare LF), signed the way
/// `scripts/make-samples` does (default header list, key record split into 255-byte strings in
/// a keys file) and verified; the "altered" edit made after signing must fail.
@Suite struct SampleMessagesTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/samples")

    static func keysFileLine(name: String, record: String) -> String {
        var strings: [String] = []
        var rest = Substring(record)
        while !rest.isEmpty {
            strings.append("\"" + rest.prefix(255) + "\"")
            rest = rest.dropFirst(255)
        }
        return name + " TXT " + strings.joined(separator: " ")
    }

    /// The domain of the first address of the From field (only the MIME basics are relied on here).
    static func fromDomain(_ bytes: [UInt8]) -> String? {
        let message = Message(bytes: bytes)
        guard let from = message.header.first("From") else { return nil }
        let value = String(decoding: bytes[from.valueRange], as: UTF8.self)
        guard let at = value.lastIndex(of: "@") else { return nil }
        let domain = value[value.index(after: at)...].prefix { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }
        return domain.isEmpty ? nil : domain.lowercased()
    }

    /// The unsigned sample messages of scripts/samples.
    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: samples.path)) ?? []).filter { $0.hasSuffix(".eml") }.sorted()
    }

    @Test(.enabled(if: Requirement.met(!files.isEmpty), "no sample messages in scripts/samples"))
    func samplesVerifyAndTheAlteredOneFails() throws {
        let files = Self.files
        try #require(!files.isEmpty, "no sample messages at \(Self.samples.path)")
        let signer = try DKIMSigner(privateKeyPEM: try #require(TestKeys.rsa2048))
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: Self.samples.appendingPathComponent(file)))
            let domain = try #require(Self.fromDomain(bytes), "\(file) has no From domain")
            let field = try signer.sign(
                bytes, domain: domain, selector: "sample", headers: ["From", "To", "Subject", "Date", "Message-ID"],
                canonicalization: .relaxedRelaxed, timestamp: 1_790_000_000, expiration: nil)
            #expect(!field.contains("\r"), "\(file): LF message must get an LF field")
            var signed = String(decoding: Array(field.utf8) + bytes, as: UTF8.self)
            let altered = file.contains("altered")
            if altered {
                signed = signed.replacingOccurrences(of: "\"partySize\": 2", with: "\"partySize\": 8")
                    .replacingOccurrences(of: "T20:00:00-07:00", with: "T21:30:00-07:00")
            }
            let keys = KeysFile(text: Self.keysFileLine(name: "sample._domainkey.\(domain)", record: signer.publicKeyRecord()))
            let results = DKIMVerifier(resolver: keys, now: 1_790_000_100).verify(Message(bytes: Array(signed.utf8)))
            #expect(results.count == 1)
            #expect(results.first?.result == (altered ? .fail : .pass), "\(file): \(results.first?.reason ?? "")")
            #expect(results.first?.domain == domain)
        }
    }
}
