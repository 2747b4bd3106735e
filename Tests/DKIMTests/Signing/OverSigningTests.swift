import DNS
import Foundation
import MIME
import TestRequirements
import Testing

@testable import DKIM

/// RFC 6376 §8.15: a signature must not let anyone add a field a reader shows (a second
/// Subject, a Content-Type above the signed one). Over-signed fields close that: checked with
/// our verifier and with dkimpy (skipped when `/usr/bin/python3` cannot `import dkim`).
@Suite("Over-signed fields cannot be added")
struct OverSigningTests {
    static let messageText = """
        From: EPIC Steak <reservations@example.com>\r
        To: Jane <jane@example.net>\r
        Subject: Your table at EPIC\r
        Date: Mon, 23 Nov 2026 02:00:00 +0000\r
        Message-ID: <table-1@example.com>\r
        MIME-Version: 1.0\r
        Content-Type: text/plain; charset=utf-8\r
        \r
        Your table for 2 is ready at 19:30.\r

        """

    static let message = Array(messageText.utf8)

    /// The message signed over `DKIMSigner.protectedFields`, and the key record.
    static func signed(_ kind: DKIMRoundTripTests.KeyKind, _ c: DKIMCanonicalization, overSign: Bool = true) throws -> (field: String, record: String)
    {
        let signer = try DKIMSigner(privateKeyPEM: try #require(DKIMRoundTripTests.pem(kind)))
        let field = try signer.sign(
            message, domain: "example.com", selector: "sel", headers: DKIMSigner.protectedFields,
            overSign: overSign, canonicalization: c,
            timestamp: Int64(Date().timeIntervalSince1970), expiration: nil)
        return (field, signer.publicKeyRecord())
    }

    /// Our verdict and dkimpy's ("pass" or "fail"; nil when dkimpy is absent).
    static func verdicts(_ bytes: [UInt8], record: String) throws -> (ours: DKIMResult?, dkimpy: String?) {
        let keys = KeysFile(text: "sel._domainkey.example.com TXT \"\(record)\"")
        let ours = DKIMVerifier(resolver: keys, now: Int64(Date().timeIntervalSince1970)).verify(Message(bytes: bytes)).first?.result
        // dkimpy's part is left out where python3 cannot import dkim, never under CI=true, where
        // .ci/run installs python3-dkim.
        guard DkimpyInteropTests.available else {
            try #require(!Requirement.inCI, "\(DkimpyInteropTests.python) cannot import dkim (install python3-dkim)")
            return (ours, nil)
        }
        let messageURL = try DkimpyInteropTests.temporary(Data(bytes))
        let keyURL = try DkimpyInteropTests.temporary(Data(record.utf8))
        defer {
            try? FileManager.default.removeItem(at: messageURL)
            try? FileManager.default.removeItem(at: keyURL)
        }
        let output = try #require(
            DkimpyInteropTests.run(["-c", DkimpyInteropTests.script, "verify", messageURL.path, keyURL.path]),
            "dkimpy failed to run")
        return (ours, String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("each field is listed once more than the message has it; an absent one once")
    func hList() throws {
        let fields = Message(bytes: Self.message).header.fields
        let names = DKIMSigner.overSigned(DKIMSigner.protectedFields, in: fields)
        #expect(
            names == [
                "From", "From", "To", "To", "Cc", "Subject", "Subject", "Date", "Date", "Message-ID", "Message-ID",
                "Reply-To", "MIME-Version", "MIME-Version", "Content-Type", "Content-Type",
                "Content-Transfer-Encoding",
            ])
        // A name given twice (in any case) counts once; two instances are listed three times.
        let twice = Message(bytes: Array("From: a@example.com\nSubject: 1\nSubject: 2\n\nx\n".utf8)).header.fields
        #expect(DKIMSigner.overSigned(["From", "subject", "Subject"], in: twice) == ["From", "From", "subject", "subject", "subject"])

        let (field, record) = try Self.signed(.rsa, .relaxedRelaxed)
        let keys = KeysFile(text: "sel._domainkey.example.com TXT \"\(record)\"")
        let verified = DKIMVerifier(resolver: keys, now: Int64(Date().timeIntervalSince1970)).verify(Message(bytes: Array(field.utf8) + Self.message))
        #expect(verified.first?.signedHeaders == names.map { $0.lowercased() })
        // h= is folded: no line of the field is longer than a mail line should be (RFC 5322 §2.1.1).
        #expect(field.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 78 })
    }

    @Test(
        "the over-signed message verifies with us and with dkimpy",
        arguments: DKIMRoundTripTests.KeyKind.allCases, [DKIMCanonicalization.relaxedRelaxed, .simpleSimple])
    func verifies(kind: DKIMRoundTripTests.KeyKind, c: DKIMCanonicalization) throws {
        let (field, record) = try Self.signed(kind, c)
        let (ours, dkimpy) = try Self.verdicts(Array(field.utf8) + Self.message, record: record)
        #expect(ours == .pass)
        if let dkimpy { #expect(dkimpy == "pass") }
    }

    /// Fields an attacker adds: above the signed ones (where many readers take the first), or
    /// below them.
    static let additions: [(field: String, onTop: Bool)] = [
        ("Subject: Your table is cancelled, pay here\r\n", true),
        ("Content-Type: text/html; charset=utf-8\r\n", true),
        ("Subject: Your table is cancelled, pay here\r\n", false),
        ("Cc: attacker@attacker.example\r\n", true),
        ("Cc: attacker@attacker.example\r\n", false),
        ("Reply-To: attacker@attacker.example\r\n", true),
    ]

    @Test(
        "an added instance of an over-signed field breaks the signature for both verifiers",
        arguments: DKIMRoundTripTests.KeyKind.allCases, additions.indices)
    func addedFieldFails(kind: DKIMRoundTripTests.KeyKind, index: Int) throws {
        let (added, onTop) = Self.additions[index]
        let (field, record) = try Self.signed(kind, .relaxedRelaxed)
        let signed = Array(field.utf8) + Self.message
        let forged = onTop ? Array(added.utf8) + signed : Self.inserted(added, beforeBodyOf: signed)
        let (ours, dkimpy) = try Self.verdicts(forged, record: record)
        #expect(ours == .fail, "\(added)")
        if let dkimpy { #expect(dkimpy == "fail", "\(added)") }
    }

    @Test("without over-signing, the same added Subject goes unnoticed (what over-signing prevents)")
    func withoutOverSigning() throws {
        let (field, record) = try Self.signed(.rsa, .relaxedRelaxed, overSign: false)
        #expect(field.contains("h=From:To:Cc:Subject:Date:Message-ID:Reply-To:"))
        let forged = Array("Subject: Your table is cancelled, pay here\r\n".utf8) + Array(field.utf8) + Self.message
        let (ours, dkimpy) = try Self.verdicts(forged, record: record)
        #expect(ours == .pass)
        if let dkimpy { #expect(dkimpy == "pass") }
    }

    /// `field` added as the last header field, just before the blank line.
    static func inserted(_ field: String, beforeBodyOf message: [UInt8]) -> [UInt8] {
        let blank: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0...(message.count - blank.count)).first(where: { Array(message[$0..<($0 + blank.count)]) == blank }) else {
            return message
        }
        return Array(message[..<(end + 2)]) + Array(field.utf8) + Array(message[(end + 2)...])
    }
}
