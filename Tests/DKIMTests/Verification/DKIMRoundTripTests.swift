import DNS
import Foundation
import MIME
import Testing

@testable import DKIM

@Suite struct DKIMRoundTripTests {
    static let now: Int64 = 1_790_000_000
    static let messageText = """
        From: Joe <joe@example.com>\r
        To: Jane <jane@example.net>\r
        Subject:  Your   table\r
        \tat EPIC\r
        Date: Mon, 23 Nov 2026 02:00:00 +0000\r
        \r
        Hello  Jane, \r
        your table is ready.\r
        \r
        \r

        """

    static func message(lf: Bool) -> [UInt8] {
        Array((lf ? messageText.replacingCRLF() : messageText).utf8)
    }

    enum KeyKind: String, CaseIterable { case rsa, ed25519 }

    static func pem(_ kind: KeyKind) -> String? { kind == .rsa ? TestKeys.rsa2048 : TestKeys.ed25519 }

    /// Signs and returns (signed message bytes, resolver serving the key).
    static func signed(
        _ kind: KeyKind, _ c: DKIMCanonicalization, lf: Bool, headers: [String] = ["From", "To", "Subject", "Date"],
        record: ((String) -> String)? = nil, expiration: Int64? = nil, timestamp: Int64 = now, body: [UInt8]? = nil
    ) throws -> ([UInt8], KeysFile) {
        let pem = try #require(Self.pem(kind), "openssl genpkey failed")
        let signer = try DKIMSigner(privateKeyPEM: pem)
        let original = body ?? message(lf: lf)
        let field = try signer.sign(
            original, domain: "example.com", selector: "sel", headers: headers, canonicalization: c,
            timestamp: timestamp, expiration: expiration)
        let keyRecord = record.map { $0(signer.publicKeyRecord()) } ?? signer.publicKeyRecord()
        let keys = KeysFile(text: "sel._domainkey.example.com TXT \"\(keyRecord)\"")
        return (Array(field.utf8) + original, keys)
    }

    static func verify(_ bytes: [UInt8], _ keys: any TXTResolver, now: Int64 = now) -> DKIMVerification? {
        DKIMVerifier(resolver: keys, now: now).verify(Message(bytes: bytes)).first
    }

    static let allCanonicalizations: [DKIMCanonicalization] = [.simpleSimple, .simpleRelaxed, .relaxedSimple, .relaxedRelaxed]

    @Test(arguments: KeyKind.allCases, allCanonicalizations)
    func signThenVerify(kind: KeyKind, c: DKIMCanonicalization) throws {
        for lf in [false, true] {
            let (bytes, keys) = try Self.signed(kind, c, lf: lf)
            let result = try #require(Self.verify(bytes, keys))
            #expect(result.result == .pass, "\(kind) \(c) lf=\(lf): \(result.reason)")
            #expect(result.domain == "example.com")
            #expect(result.signedHeaders == ["from", "to", "subject", "date"])
            #expect(result.coversWholeBody)
            if kind == .rsa { #expect(result.keyBits == 2048) }
            // The field uses the message's line breaks.
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.contains("\r\n") == !lf)
        }
    }

    @Test(arguments: KeyKind.allCases)
    func tamperedBodyFailsOnBodyHash(kind: KeyKind) throws {
        let (bytes, keys) = try Self.signed(kind, .relaxedRelaxed, lf: false)
        let tampered = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences("ready", "gone!").utf8)
        let result = try #require(Self.verify(tampered, keys))
        #expect(result.result == .fail)
        #expect(result.code == .bodyHashMismatch)
    }

    @Test(arguments: KeyKind.allCases)
    func tamperedSignedHeaderFailsOnSignature(kind: KeyKind) throws {
        let (bytes, keys) = try Self.signed(kind, .simpleSimple, lf: true)
        let tampered = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences("jane@example.net", "evil@example.net").utf8)
        let result = try #require(Self.verify(tampered, keys))
        #expect(result.result == .fail)
        #expect(result.code == .signatureMismatch)
    }

    @Test func addedUnsignedHeaderStillPasses() throws {
        let (bytes, keys) = try Self.signed(.rsa, .relaxedRelaxed, lf: false)
        let result = try #require(Self.verify(Array("X-Added: by a relay\r\n".utf8) + bytes, keys))
        #expect(result.result == .pass)
    }

    @Test func addedSecondFromBreaksOversignedSignature() throws {
        // h= lists From twice: a From added on top is picked and fails the signature.
        let (bytes, keys) = try Self.signed(.ed25519, .relaxedRelaxed, lf: false, headers: ["From", "From", "Subject"])
        #expect(Self.verify(bytes, keys)?.result == .pass)
        let withFrom = Array("From: evil@example.org\r\n".utf8) + bytes
        #expect(Self.verify(withFrom, keys)?.result == .fail)
    }

    @Test func bodyLengthWithAppendedContent() throws {
        let (bytes, keys) = try Self.signed(.rsa, .relaxedRelaxed, lf: false)
        // Put l= into a fresh signature: sign a message, then rewrite is impossible; sign with l= via the canonical length.
        let canonicalLength = BodyHashComputation(bytes: bytes, range: Message(bytes: bytes).bodyRange, relaxed: true, limit: nil).canonicalLength
        let limited = try DKIMRoundTripTests.signWithLength(canonicalLength)
        #expect(Self.verify(limited.0, limited.1)?.result == .pass)
        let appended = limited.0 + Array("Click here: https://evil.example/\r\n".utf8)
        let result = try #require(Self.verify(appended, limited.1))
        #expect(result.result == .pass)
        #expect(result.bodyLength == canonicalLength)
        #expect(result.coversWholeBody == false)
        _ = keys
    }

    @Test func bodyLengthBeyondBodyIsPermerror() throws {
        let (bytes, keys) = try Self.signWithLength(10_000)
        let result = try #require(Self.verify(bytes, keys))
        #expect(result.result == .permerror)
        #expect(result.code == .bodyLengthExceeded)
    }

    /// Signs with an `l=` tag by building the signature field by hand through the private key.
    static func signWithLength(_ length: Int, pem given: String? = nil) throws -> ([UInt8], KeysFile) {
        let pem = try #require(given ?? TestKeys.rsa2048)
        let key = try #require(PrivateKey(pem: pem))
        let original = message(lf: false)
        let parsed = Message(bytes: original)
        let body = BodyHashComputation(bytes: original, range: parsed.bodyRange, relaxed: true, limit: length)
        let field =
            "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=sel; l=\(length);\r\n\th=from:subject; bh=\(Base64.encode(body.hash)); b="
        let fieldBytes = Array((field + "\r\n").utf8)
        let fieldHeader = try #require(Message(bytes: fieldBytes).header.fields.first)
        let tags = try TagList(fieldBytes, in: fieldHeader.valueRange)
        var data: [UInt8] = []
        for picked in HeaderSelection.select(["from", "subject"], from: parsed.header.fields, excluding: nil) {
            data += HeaderCanonicalizer.canonicalize(original, picked, relaxed: true)
        }
        data += SignedHeaderData.signatureField(fieldBytes, fieldHeader, tags: tags, relaxed: true)
        let signature = try #require(key.sign(data))
        let record = "v=DKIM1; k=rsa; p=" + Base64.encode(key.publicKeyBytes())
        let keys = KeysFile(text: "sel._domainkey.example.com TXT \"\(record)\"")
        return (Array((field + Base64.encode(signature) + "\r\n").utf8) + original, keys)
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

@Suite struct DKIMSignerKeyFormatTests {
    /// `openssl pkey -traditional` turns the PKCS#8 test key into `BEGIN RSA PRIVATE KEY`.
    static func traditional(_ pem: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "pkey", "-traditional"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        input.fileHandleForWriting.write(Data(pem.utf8))
        try? input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }

    @Test func traditionalAndPKCS8KeysGiveTheSameRecord() throws {
        let pkcs8 = try #require(TestKeys.rsa2048)
        let traditional = try #require(Self.traditional(pkcs8))
        #expect(traditional.contains("BEGIN RSA PRIVATE KEY"))
        let a = try DKIMSigner(privateKeyPEM: pkcs8).publicKeyRecord()
        let b = try DKIMSigner(privateKeyPEM: traditional).publicKeyRecord()
        #expect(a == b)
        #expect(a.hasPrefix("v=DKIM1; k=rsa; p=MIIB"))
    }

    @Test func ed25519RecordIsTheRawKey() throws {
        let record = try DKIMSigner(privateKeyPEM: try #require(TestKeys.ed25519)).publicKeyRecord()
        #expect(record.hasPrefix("v=DKIM1; k=ed25519; p="))
        let key = String(record.dropFirst("v=DKIM1; k=ed25519; p=".count))
        #expect(Base64.decode(key)?.count == 32)
    }

    @Test func garbageKeyIsRejected() {
        #expect(throws: DKIMSigner.Error.unusablePrivateKey) {
            try DKIMSigner(privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
    }
}
