import COpenSSL
import Testing

@testable import DKIM

/// The key in a record's `p=` is read by Reservoir's own walk over the DER (RSAPublicKeyDER) and
/// handed to OpenSSL as numbers. OpenSSL's DER decoder (`d2i_PUBKEY`, `d2i_PublicKey`) is the
/// reference: damaged keys must be refused exactly when it refuses them, and an accepted key
/// must be the same key.
@Suite struct PublicKeyDERTests {
    /// What OpenSSL's decoders make of `der`: the RSA key, or nil when neither the
    /// SubjectPublicKeyInfo nor the PKCS#1 decoder gives one. Like Reservoir, they read the
    /// first element and ignore bytes after it.
    static func reference(_ der: [UInt8]) -> Int? {
        der.withUnsafeBufferPointer { buffer -> Int? in
            var cursor = buffer.baseAddress
            var key = d2i_PUBKEY(nil, &cursor, buffer.count)
            if key == nil {
                cursor = buffer.baseAddress
                key = d2i_PublicKey(reservoir_EVP_PKEY_RSA(), nil, &cursor, buffer.count)
            }
            defer { ERR_clear_error() }
            guard let key else { return nil }
            defer { EVP_PKEY_free(key) }
            return reservoir_EVP_PKEY_id(key) == reservoir_EVP_PKEY_RSA() ? Int(reservoir_EVP_PKEY_bits(key)) : nil
        }
    }

    static func spki(_ pem: String?) throws -> [UInt8] {
        let text = try #require(pem)
        return try #require(PrivateKey(pem: text)).publicKeyBytes()
    }

    /// The RSAPublicKey inside a SubjectPublicKeyInfo: the BIT STRING's content after its
    /// unused-bits byte, found as the last element of the outer SEQUENCE.
    static func pkcs1(_ spki: [UInt8]) -> [UInt8] {
        // 30 LEN (30 0D 06 09 <oid> 05 00) 03 LEN 00 <RSAPublicKey>
        let outerHeader = spki[1] & 0x80 == 0 ? 2 : 2 + Int(spki[1] & 0x7F)
        let algorithm = outerHeader + 2 + Int(spki[outerHeader + 1])
        let bitStringHeader = spki[algorithm + 1] & 0x80 == 0 ? 2 : 2 + Int(spki[algorithm + 1] & 0x7F)
        return Array(spki[(algorithm + bitStringHeader + 1)...])
    }

    @Test(arguments: [1024, 2048, 3072])
    func wellFormedKeysReadAsOpenSSLReadsThem(bits: Int) throws {
        let pem = [1024: TestKeys.rsa1024, 2048: TestKeys.rsa2048, 3072: TestKeys.rsa3072][bits] ?? nil
        let spki = try Self.spki(pem)
        for der in [spki, Self.pkcs1(spki)] {
            #expect(Self.reference(der) == bits)
            let key = try #require(PublicKey.rsa(der: der))
            #expect(key.bits == bits)
        }
    }

    @Test func ed25519AndTruncatedKeysAreNotRSA() throws {
        let ed = try Self.spki(TestKeys.ed25519)
        #expect(ed.count == 32)
        #expect(PublicKey.rsa(der: ed) == nil)
        let spki = try Self.spki(TestKeys.rsa2048)
        #expect(PublicKey.rsa(der: []) == nil)
        #expect(PublicKey.rsa(der: Array(spki.dropLast())) == nil)
        #expect(PublicKey.rsa(der: spki + [0])?.bits == 2048, "bytes after the key are ignored, as OpenSSL's decoder ignores them")
    }

    /// Every truncation, and every byte of the structure (everything but the modulus' inner
    /// bytes) flipped three ways. Reservoir never accepts what OpenSSL's decoder refuses, and
    /// reads the same size when both accept. It refuses more: a negative modulus or exponent
    /// (OpenSSL's decoder passes them on, to fail at verification), parameters other than NULL
    /// for rsaEncryption (RFC 3279 §2.3.1) and a BIT STRING with unused bits.
    @Test(arguments: ["spki", "pkcs1"])
    func damagedKeysAgreeWithOpenSSL(form: String) throws {
        let spki = try Self.spki(TestKeys.rsa1024)
        let der = form == "spki" ? spki : Self.pkcs1(spki)
        // SubjectPublicKeyInfo 1024: 30 81 9F | 30 0D 06 09 <oid> [05 00] | 03 81 8D [00] | 30 81 89 …
        let modulusStart = form == "spki" ? 28 : 6
        let exponentStart = der.count - 3
        let stricterPositions = Set(form == "spki" ? [16, 17, 21] : []).union([modulusStart, exponentStart])
        var variants: [(bytes: [UInt8], changed: Int?)] = (0..<der.count).map { (Array(der[0..<$0]), nil) }
        let structure = Array(0..<min(40, der.count)) + Array(max(0, der.count - 12)..<der.count)
        for index in structure {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var changed = der
                changed[index] ^= mask
                variants.append((changed, index))
            }
        }
        var disagreements: [String] = []
        var stricter = 0
        for (variant, changed) in variants {
            let ours = PublicKey.rsa(der: variant)?.bits
            let theirs = Self.reference(variant)
            if ours == theirs { continue }
            if ours == nil, theirs != nil, let changed, stricterPositions.contains(changed) {
                stricter += 1
                continue
            }
            disagreements.append(
                "\(variant.count) bytes, changed at \(changed.map(String.init) ?? "end"): ours \(ours.map(String.init) ?? "refused"), OpenSSL \(theirs.map(String.init) ?? "refused")"
            )
        }
        #expect(variants.count > 200)
        #expect(stricter < 20)
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }
}
