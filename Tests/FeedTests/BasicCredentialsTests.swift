import Foundation
import ReservoirBase
import Testing

@testable import Feed

@Suite("HTTP Basic credentials (RFC 7617) and constant-time comparison")
struct BasicCredentialsTests {
    static let aladdin = BasicCredentials(user: "Aladdin".utf8, password: "open sesame".utf8)

    @Test("the RFC 7617 §2 example, with the scheme in any case")
    func example() {
        #expect(BasicCredentials(authorization: "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==") == Self.aladdin)
        #expect(BasicCredentials(authorization: "basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==") == Self.aladdin)
        #expect(BasicCredentials(authorization: "BASIC   QWxhZGRpbjpvcGVuIHNlc2FtZQ== ") == Self.aladdin)
    }

    @Test("the password is everything after the first colon")
    func colonInPassword() {
        let field = "Basic " + Data("me:a:b:".utf8).base64EncodedString()
        #expect(BasicCredentials(authorization: field) == BasicCredentials(user: "me".utf8, password: "a:b:".utf8))
    }

    @Test(
        "what is not Basic credentials is refused",
        arguments: [
            "", "Basic", "Basic ", "Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "BasicQWxhZGRpbjpvcGVuIHNlc2FtZQ==",
            "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ", "Basic QWxh=GRpbjpvcGVuIHNlc2FtZQ==", "Basic bm9jb2xvbg==",
            "Basic " + String(repeating: "QUFB", count: 2000),
        ])
    func refused(field: String) {
        #expect(BasicCredentials(authorization: field) == nil)
    }

    @Test("base64 decodes and encodes as Foundation does, on every length")
    func base64() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            let encoded = Data(bytes).base64EncodedString()
            #expect(Base64Text.decode(Array(encoded.utf8)) == bytes)
            #expect(Base64Text.encode(bytes) == encoded)
        }
        #expect(Base64Text.decode(Array("A===".utf8)) == nil)
        #expect(Base64Text.decode(Array("AB=C".utf8)) == nil)
    }

    @Test("a wrong password, a wrong user, a prefix or a longer password do not match")
    func matching() {
        #expect(Self.aladdin.matches(Self.aladdin))
        #expect(!BasicCredentials(user: "Aladdin".utf8, password: "open sesamE".utf8).matches(Self.aladdin))
        #expect(!BasicCredentials(user: "aladdin".utf8, password: "open sesame".utf8).matches(Self.aladdin))
        #expect(!BasicCredentials(user: "Aladdin".utf8, password: "open".utf8).matches(Self.aladdin))
        #expect(!BasicCredentials(user: "Aladdin".utf8, password: "open sesame!".utf8).matches(Self.aladdin))
        #expect(!BasicCredentials(user: "".utf8, password: "".utf8).matches(Self.aladdin))
    }

    @Test("constant-time equality: equal only when equal, whatever the lengths")
    func constantTime() {
        #expect(ConstantTime.equal(Array("secret".utf8), Array("secret".utf8)))
        #expect(!ConstantTime.equal(Array("secret".utf8), Array("secreT".utf8)))
        #expect(!ConstantTime.equal(Array("secret".utf8), Array("secret\0".utf8)))
        #expect(!ConstantTime.equal([UInt8](), Array("x".utf8)))
        #expect(ConstantTime.equal([UInt8](), [UInt8]()))
        #expect(ConstantTime.both(true, true) && !ConstantTime.both(true, false) && !ConstantTime.both(false, true))
    }

    @Test("a mismatch in the first byte takes as long as one in the last (no early exit)")
    func timing() {
        let secret = [UInt8](repeating: 0x61, count: 4096)
        var first = secret
        first[0] = 0x62
        var last = secret
        last[secret.count - 1] = 0x62
        func measure(_ guess: [UInt8]) -> UInt64 {
            var best = UInt64.max
            for _ in 0..<11 {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<200 { _ = ConstantTime.equal(guess, secret) }
                best = min(best, DispatchTime.now().uptimeNanoseconds - start)
            }
            return best
        }
        let early = Double(measure(first))
        let late = Double(measure(last))
        // Both hash the whole guess and compare whole digests: the times are the same but for
        // noise (a byte-wise early exit over the secret would make `early` hundreds of times
        // shorter). The bounds are wide because the other suites share the cores.
        #expect(early / late > 0.25 && early / late < 4, "first byte \(early) ns, last byte \(late) ns")
    }
}
