import DNS
import Foundation
import MIME
import Testing

@testable import DKIM

@Suite struct DKIMPolicyTests {
    typealias RT = DKIMRoundTripTests

    static func result(
        _ kind: RT.KeyKind = .rsa, headers: [String] = ["From", "Subject"], record: ((String) -> String)? = nil,
        expiration: Int64? = nil, timestamp: Int64 = RT.now, edit: ((String) -> String)? = nil,
        resolver: (any TXTResolver)? = nil
    ) throws -> DKIMVerification {
        let (bytes, keys) = try RT.signed(
            kind, .relaxedRelaxed, lf: false, headers: headers, record: record,
            expiration: expiration, timestamp: timestamp)
        let final = edit.map { Array($0(String(decoding: bytes, as: UTF8.self)).utf8) } ?? bytes
        return try #require(RT.verify(final, resolver ?? keys))
    }

    @Test func revokedKey() throws {
        let r = try Self.result(record: { _ in "v=DKIM1; k=rsa; p=" })
        #expect(r.result == .permerror)
        #expect(r.code == .keyRevoked)
        #expect(r.code == .keyRevoked)
    }

    @Test func keyTypeMismatch() throws {
        let r = try Self.result(record: { $0.replacingOccurrences("k=rsa", "k=ed25519") })
        #expect(r.result == .permerror)
        #expect(r.code == .keyTypeMismatch)
        #expect(r.code == .keyTypeMismatch)
    }

    @Test func versionMustComeFirst() throws {
        let r = try Self.result(record: { "k=rsa; v=DKIM1; " + $0.replacingOccurrences("v=DKIM1; k=rsa; ", "") })
        #expect(r.result == .permerror)
        #expect(r.code == .malformedKeyRecord)
    }

    @Test func testingFlagIsReported() throws {
        let r = try Self.result(.ed25519, record: { $0 + "; t=y" })
        #expect(r.result == .pass)
        #expect(r.testing)
        #expect(r.code == .testingKey)
    }

    @Test func strictFlagRejectsSubdomainIdentity() throws {
        let r = try Self.result(record: { $0 + "; t=s" }, edit: { $0.replacingOccurrences("s=sel;", "s=sel; i=joe@mail.example.com;") })
        #expect(r.result == .permerror)
        #expect(r.code == .identityMismatch)
        #expect(r.code == .identityMismatch)
    }

    @Test func identityOutsideDomain() throws {
        let r = try Self.result(edit: { $0.replacingOccurrences("s=sel;", "s=sel; i=joe@example.org;") })
        #expect(r.result == .permerror)
        #expect(r.code == .identityMismatch)
        #expect(r.code == .identityMismatch)
    }

    /// RFC 6376 §3.5: d= is a domain name; a comment or other punctuation makes it unusable,
    /// so "d=example.com(.attacker.example" can never pass for example.com.
    @Test(arguments: ["example.com(.attacker.example", "example.com .attacker.example", "exa\"mple.com"])
    func domainWithPunctuation(domain: String) throws {
        let r = try Self.result(edit: { $0.replacingOccurrences("d=example.com;", "d=\(domain);") })
        #expect(r.result == .permerror)
    }

    @Test func expiredSignature() throws {
        let r = try Self.result(expiration: RT.now - 3600, timestamp: RT.now - 7200)
        #expect(r.result == .permerror)
        #expect(r.code == .expired)
        #expect(r.code == .expired)
    }

    @Test func expirationBeforeTimestamp() throws {
        let r = try Self.result(expiration: RT.now + 10, timestamp: RT.now + 20)
        #expect(r.result == .permerror)
        #expect(r.code == .invalidTimestamps)
    }

    @Test func futureTimestamp() throws {
        let r = try Self.result(timestamp: RT.now + 86_400)
        #expect(r.result == .permerror)
        #expect(r.code == .futureTimestamp)
        #expect(r.code == .futureTimestamp)
    }

    @Test func fromMustBeSigned() throws {
        let r = try Self.result(edit: { $0.replacingOccurrences("h=From:Subject", "h=Subject") })
        #expect(r.result == .permerror)
        #expect(r.code == .fromNotSigned)
        #expect(r.code == .fromNotSigned)
    }

    @Test func rsaSHA1NeverPasses() throws {
        let r = try Self.result(edit: { $0.replacingOccurrences("a=rsa-sha256", "a=rsa-sha1") })
        #expect(r.result != .pass)
        // The edited a= changes the body hash's algorithm, so the hash no longer matches.
        #expect(r.code == .bodyHashMismatch)
    }

    @Test func duplicateTagIsPermerror() throws {
        let r = try Self.result(edit: { $0.replacingOccurrences("s=sel;", "s=sel; s=sel;") })
        #expect(r.result == .permerror)
        #expect(r.code == .malformedSignature)
    }

    @Test(arguments: ["rsa512", "rsa768"])
    func shortKeysNeverPass(name: String) throws {
        let pem = try #require(name == "rsa512" ? TestKeys.rsa512 : TestKeys.rsa768)
        // The signer refuses short keys itself (RFC 8301 §3.2), so sign through the raw key.
        #expect(throws: DKIMSigner.Error.self) { try DKIMSigner(privateKeyPEM: pem) }
        // Signed by the short key itself, covering the whole canonical body: only the key size is wrong.
        let original = RT.message(lf: false)
        let length = BodyHashComputation(bytes: original, range: Message(bytes: original).bodyRange, relaxed: true, limit: nil).canonicalLength
        let (bytes, keys) = try RT.signWithLength(length, pem: pem)
        let r = try #require(RT.verify(bytes, keys))
        #expect(r.result == .permerror)
        #expect(r.code == .keyTooShort)
        #expect(r.code == .keyTooShort)
        #expect(r.keyBits == (name == "rsa512" ? 512 : 768))
        #expect(r.coversWholeBody)
    }

    final class FixedResolver: TXTResolver {
        let answer: TXTLookupResult
        init(_ answer: TXTLookupResult) { self.answer = answer }
        func lookupTXT(_ name: String) -> TXTLookupResult { answer }
    }

    @Test func missingKeyIsPermerror() throws {
        let r = try Self.result(resolver: FixedResolver(.notFound))
        #expect(r.result == .permerror)
        #expect(r.code == .keyNotFound)
        #expect(r.code == .keyNotFound)
    }

    @Test func lookupFailureIsTemperror() throws {
        let r = try Self.result(resolver: FixedResolver(.temporaryFailure("SERVFAIL")))
        #expect(r.result == .temperror)
        #expect(r.code == .keyLookupFailed)
    }

    @Test func firstParseableRecordIsUsed() throws {
        let (bytes, keys) = try RT.signed(.ed25519, .relaxedRelaxed, lf: true)
        guard case .found(let records) = keys.lookupTXT("sel._domainkey.example.com") else {
            Issue.record("no key")
            return
        }
        let r = try #require(RT.verify(bytes, FixedResolver(.found(["v=spf1 -all; =", "garbage without equals"] + records))))
        #expect(r.result == .pass)
        #expect(r.code == nil)
    }

    @Test func tooManySignatures() throws {
        let (bytes, keys) = try RT.signed(.ed25519, .relaxedRelaxed, lf: false)
        let text = String(decoding: bytes, as: UTF8.self)
        let fieldEnd = try #require(text.range(of: "\r\nFrom:"))
        let field = String(text[..<fieldEnd.lowerBound]) + "\r\n"
        let fixed = Array((String(repeating: field, count: DKIMLimits.maxSignatures + 2) + "From:" + text[fieldEnd.upperBound...]).utf8)
        let results = DKIMVerifier(resolver: keys, now: RT.now).verify(Message(bytes: fixed))
        #expect(results.count == DKIMLimits.maxSignatures + 2)
        #expect(results.prefix(DKIMLimits.maxSignatures).allSatisfy { $0.result == .pass })
        #expect(results.suffix(2).allSatisfy { $0.result == .policy && $0.code == .tooManySignatures })
    }

    @Test func garbageSignatureFieldsNeverCrash() {
        let inputs = [
            "DKIM-Signature: \r\nFrom: a@b\r\n\r\n", "DKIM-Signature: ;;;=;\r\n\r\n", "DKIM-Signature: v=1; b=!!!; bh=; a=x\r\n\r\nbody",
            "DKIM-Signature: v=1; a=rsa-sha256; d=example.com; s=sel; h=from; bh=AA==; b=AA==; l=99999999999999999999999\r\nFrom: x\r\n\r\n",
        ]
        for input in inputs {
            let results = DKIMVerifier(resolver: KeysFile(text: ""), now: RT.now).verify(Message(bytes: Array(input.utf8)))
            #expect(results.count == 1)
            #expect(results.first?.result == .permerror)
            #expect(results.first?.code != nil)
        }
    }
}
