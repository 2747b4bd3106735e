import DKIM
import Foundation
import Pipeline
import Testing

@testable import Output

@Suite("Authentication-Results: parse and format (RFC 8601)")
struct AuthenticationResultsPayloadTests {
    typealias Payload = AuthenticationResultsPayload
    typealias Info = AuthenticationResultsPayload.ResultInfo
    typealias Property = AuthenticationResultsPayload.Property

    static func parsed(_ value: String) throws -> Payload {
        try Payload.parse(value).get()
    }

    /// RFC 8601 Appendix B, the field values as printed there (folding included).
    static let appendixB: [(value: String, expected: Payload)] = [
        // B.2: service provided, no authentication done.
        ("example.org 1; none", Payload(authservID: "example.org", version: 1, results: [])),
        // B.3: SPF.
        (
            "example.com; spf=pass smtp.mailfrom=example.net",
            Payload(
                authservID: "example.com",
                results: [Info(method: "spf", result: "pass", properties: [Property(type: "smtp", name: "mailfrom", value: "example.net")])])
        ),
        // B.4: SMTP AUTH and SPF, with a comment after a result.
        (
            "example.com;\r\n          auth=pass (cram-md5) smtp.auth=sender@example.net;\r\n          spf=pass smtp.mailfrom=example.net",
            Payload(
                authservID: "example.com",
                results: [
                    Info(method: "auth", result: "pass", properties: [Property(type: "smtp", name: "auth", value: "sender@example.net")]),
                    Info(method: "spf", result: "pass", properties: [Property(type: "smtp", name: "mailfrom", value: "example.net")]),
                ])
        ),
        (
            "example.com; iprev=pass\r\n          policy.iprev=192.0.2.200",
            Payload(
                authservID: "example.com",
                results: [Info(method: "iprev", result: "pass", properties: [Property(type: "policy", name: "iprev", value: "192.0.2.200")])])
        ),
        // B.5: DKIM with a comment.
        (
            "example.com;\r\n          dkim=pass (good signature) header.d=example.com",
            Payload(
                authservID: "example.com",
                results: [Info(method: "dkim", result: "pass", properties: [Property(type: "header", name: "d", value: "example.com")])])
        ),
        (
            "example.com;\r\n          sender-id=fail header.from=example.com;\r\n          dkim=pass (good signature) header.d=sender.example.net",
            Payload(
                authservID: "example.com",
                results: [
                    Info(method: "sender-id", result: "fail", properties: [Property(type: "header", name: "from", value: "example.com")]),
                    Info(method: "dkim", result: "pass", properties: [Property(type: "header", name: "d", value: "sender.example.net")]),
                ])
        ),
        // B.6: reasons as quoted-strings, identities with an empty local-part.
        (
            "example.com;\r\n    dkim=pass reason=\"good signature\"\r\n      header.i=@mail-router.example.net;\r\n    dkim=fail reason=\"bad signature\"\r\n      header.i=@newyork.example.com",
            Payload(
                authservID: "example.com",
                results: [
                    Info(
                        method: "dkim", result: "pass", reason: "good signature",
                        properties: [Property(type: "header", name: "i", value: "@mail-router.example.net")]),
                    Info(
                        method: "dkim", result: "fail", reason: "bad signature",
                        properties: [Property(type: "header", name: "i", value: "@newyork.example.com")]),
                ])
        ),
        // B.7: comments everywhere the grammar allows them, and versions.
        (
            "foo.example.net (foobar) 1 (baz);\r\n    dkim (Because I like it) / 1 (One yay) = (wait for it) fail\r\n      policy (A dot can go here) . (like that) expired\r\n      (this surprised me) = (as I wasn't expecting it) 1362471462",
            Payload(
                authservID: "foo.example.net", version: 1,
                results: [
                    Info(
                        method: "dkim", methodVersion: 1, result: "fail", properties: [Property(type: "policy", name: "expired", value: "1362471462")]
                    )
                ])
        ),
    ]

    @Test("RFC 8601 Appendix B examples", arguments: appendixB.indices)
    func appendixExamples(index: Int) throws {
        let (value, expected) = Self.appendixB[index]
        #expect(try Self.parsed(value) == expected)
        // And with LF line ends, as Maildir files have them.
        #expect(try Self.parsed(value.replacingOccurrences(of: "\r\n", with: "\n")) == expected)
    }

    @Test(
        "the authserv-id: a token or a quoted-string, a version after it, comments before and after",
        arguments: [
            ("mx.example; none", "mx.example", nil), ("\"mx.example\"; none", "mx.example", nil),
            ("\"mx example; (not a comment)\" 1; none", "mx example; (not a comment)", 1),
            ("(leading comment) mx.example (c); none", "mx.example", nil), ("  \r\n\tmx.example 1 ; none", "mx.example", 1),
            ("(nested (comment) \\) here) mx.example;none", "mx.example", nil), ("\"a\\\"b\\\\c\"; none", "a\"b\\c", nil),
            ("MX.Example; DKIM=PASS", "MX.Example", nil),
        ] as [(String, String, Int?)])
    func authservID(value: String, id: String, version: Int?) throws {
        let payload = try Self.parsed(value)
        #expect(payload.authservID == id)
        #expect(payload.version == version)
    }

    @Test("keywords are lowercased, a reason may stand among the properties, a quoted local-part keeps its domain")
    func details() throws {
        let payload = try Self.parsed("mx; DKIM=Pass header.D=Example.COM reason=\"r\" header.i=\"joe smith\"@example.com;")
        #expect(
            payload.results == [
                Info(
                    method: "dkim", result: "pass", reason: "r",
                    properties: [
                        Property(type: "header", name: "d", value: "Example.COM"),
                        Property(type: "header", name: "i", value: "joe smith@example.com"),
                    ])
            ])
    }

    @Test(
        "what is not a payload is an error with a code, never a trap",
        arguments: [
            ("", .missingAuthservID), ("   ", .missingAuthservID), (";", .missingAuthservID), ("(unterminated", .malformedComment),
            ("mx.example", .missingResult), ("mx.example dkim=pass", .expectedSemicolon), ("mx.example;", .missingResult),
            ("mx; dkim", .malformedMethod), ("mx; dkim=", .malformedMethod), ("mx; =pass", .malformedMethod),
            ("\"unterminated; none", .unterminatedQuotedString), ("mx 1x; none", .expectedSemicolon),
            ("mx 12345678901; none", .malformedVersion), ("mx; dkim/x=pass", .malformedMethod),
            ("mx; dkim=pass header.d", .malformedProperty), ("mx; dkim=pass header.=x", .malformedProperty),
            ("mx; dkim=pass header.d=", .malformedProperty), ("mx; dkim=pass reason=", .malformedProperty),
            ("mx; none; dkim=pass", .malformedMethod), ("mx; dkim=pass; ; spf=pass", .malformedMethod),
            ("mx; dkim=pass \u{0}", .malformedProperty),
        ] as [(String, AuthenticationResultsParseError.Code)])
    func garbage(value: String, code: AuthenticationResultsParseError.Code) {
        #expect(Payload.parse(value) == .failure(AuthenticationResultsParseError(code, at: 0)), "\(value.debugDescription)")
    }

    @Test("the limits hold: value length, results, properties, comment depth")
    func limits() {
        let long = "mx; dkim=pass header.d=" + String(repeating: "a", count: AuthenticationResultsParser.maxValueBytes)
        #expect(Payload.parse(long) == .failure(AuthenticationResultsParseError(.tooLong, at: 0)))
        let results = "mx" + String(repeating: "; dkim=pass", count: AuthenticationResultsParser.maxResults + 1)
        #expect(Payload.parse(results) == .failure(AuthenticationResultsParseError(.tooManyResults, at: 0)))
        #expect(
            (try? Payload.parse("mx" + String(repeating: "; dkim=pass", count: AuthenticationResultsParser.maxResults)).get())?.results.count
                == AuthenticationResultsParser.maxResults)
        let properties = "mx; dkim=pass" + String(repeating: " header.d=x", count: AuthenticationResultsParser.maxProperties + 1)
        #expect(Payload.parse(properties) == .failure(AuthenticationResultsParseError(.tooManyProperties, at: 0)))
        let depth = AuthenticationResultsParser.maxCommentDepth
        #expect((try? Payload.parse(String(repeating: "(", count: depth) + String(repeating: ")", count: depth) + " mx; none").get()) != nil)
        let deep = String(repeating: "(", count: depth + 1) + String(repeating: ")", count: depth + 1) + " mx; none"
        #expect(Payload.parse(deep) == .failure(AuthenticationResultsParseError(.malformedComment, at: 0)))
        // 60,000 opening parentheses: no recursion, no trap.
        #expect(Payload.parse(String(repeating: "(", count: 60_000)) == .failure(AuthenticationResultsParseError(.malformedComment, at: 0)))
    }

    static let roundTrips: [Payload] =
        appendixB.map(\.expected) + [
            Payload(
                authservID: "mx example; with \"quotes\" and \\ (parens)", version: 1,
                results: [
                    Info(
                        method: "dkim", methodVersion: 2, result: "permerror", reason: "a \"quoted\" reason; (with) \\ specials",
                        properties: [
                            Property(type: "header", name: "d", value: "exa mple.com"), Property(type: "header", name: "i", value: "\"joe\"@x"),
                            Property(type: "header", name: "s", value: ""), Property(type: "header", name: "b", value: "a=b;c"),
                        ])
                ]),
            Payload(authservID: "", results: [Info(method: "dkim", result: "none")]),
            Payload(
                authservID: "@",
                results: [Info(method: "x-custom-method", result: "neutral", properties: [Property(type: "smtp", name: "mailfrom", value: "a@b@c")])]),
        ]

    @Test("format then parse gives the same payload, folded or not", arguments: roundTrips.indices)
    func roundTrip(index: Int) throws {
        let payload = Self.roundTrips[index]
        #expect(try Self.parsed(payload.formatted) == payload, "\(payload.formatted)")
    }

    @Test("the filter's own field parses back to its results; a non-token authserv-id is quoted")
    func ownField() throws {
        let signatures = [
            DKIMVerification(result: .pass, reason: "", domain: "epicsteak.example", selector: "s2026", identity: "@epicsteak.example"),
            DKIMVerification(
                result: .fail, code: .bodyHashMismatch, reason: "body hash did not verify (the body was changed)",
                domain: "evil\r\nX-Injected: yes", selector: "s\"; dkim=pass"),
        ]
        for id in ["mx.home.example", "mx home; example", "mx.\u{E9}xample"] {
            let results = AuthenticationResults(authservID: id, signatures: signatures)
            let field = results.field(lineEnding: "\n")
            #expect(!field.dropLast().contains("\n\n") && field.split(separator: "\n").dropFirst().allSatisfy { $0.hasPrefix("\t") })
            let value = field.dropFirst("Authentication-Results:".count)
            let payload = try Self.parsed(String(value))
            #expect(payload == results.payload)
            #expect(payload.authservID == AuthenticationResults.writtenID(id))
            #expect(payload.results.map(\.result) == ["pass", "fail"])
            #expect(payload.results[1].reason == "body hash did not verify")
            #expect(payload.results[1].properties[0].value == "evil  X-Injected: yes")
        }
    }

    @Test("reason= is the fixed phrase of the code, never the verifier's words; none without a code")
    func reasonIsAFixedPhrase() throws {
        let tainted = DKIMVerification(
            result: .permerror, code: .malformedTag, reason: "d=attacker\"text is not a valid domain name",
            domain: "attacker.example", selector: "s")
        let value = AuthenticationResults(authservID: "mx", signatures: [tainted]).value
        #expect(value == "mx; dkim=permerror reason=\"malformed tag value\" header.d=attacker.example header.s=s")
        let uncoded = DKIMVerification(result: .fail, reason: "words only", domain: "d.example", selector: "s")
        #expect(AuthenticationResults(authservID: "mx", signatures: [uncoded]).value == "mx; dkim=fail header.d=d.example header.s=s")
        for code in DKIMVerification.Code.allCases {
            let phrase = AuthenticationResults.reasonPhrase(code)
            #expect(!phrase.isEmpty && phrase.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        }
    }

    @Test("a message-level result replaces every signature's, and stands alone without one")
    func messageResult() {
        let signature = DKIMVerification(result: .pass, reason: "", domain: "d.example", selector: "s")
        let policy = AuthenticationResults.MessageResult(result: .policy, reason: "two From fields")
        #expect(
            AuthenticationResults(authservID: "mx", signatures: [signature], messageResult: policy).value
                == "mx; dkim=policy reason=\"two From fields\" header.d=d.example header.s=s")
        #expect(
            AuthenticationResults(authservID: "mx", signatures: [], messageResult: .timeBudgetExceeded).value
                == "mx; dkim=temperror reason=\"time budget exceeded\"")
        #expect(AuthenticationResults(authservID: "mx", signatures: []).value == "mx; dkim=none")
    }

    /// (value, claims mx.test)
    static let claims: [(String, Bool)] = [
        ("mx.test; dkim=pass", true), ("MX.Test; dkim=pass", true), ("\"mx.test\"; dkim=pass", true), ("(c) mx.test 1; none", true),
        (" \r\n\tmx.test;\r\n\tdkim=pass", true), ("mx.test(; dkim=pass", true), ("mx.test dkim=pass", true), ("mx.test", true),
        ("m\"x.test\"; dkim=pass", true), ("mx.test/1; dkim=pass", true), ("(c)\"mx\" .test dkim=pass", true),
        ("mx.test.evil.example; dkim=pass", false), ("other.example; dkim=pass", false), ("evil.example; dkim=pass (mx.test)", false),
        ("\"mx.test \"; dkim=pass", true), ("(unterminated mx.test; dkim=pass", false), ("", false), ("; dkim=pass", false),
    ]

    @Test("a field claims our authserv-id when it names it, or when a lenient reader could read it so", arguments: claims)
    func claimsOurID(value: String, claimed: Bool) {
        #expect(Payload.claims(Array(value.utf8), authservID: "mx.test") == claimed, "\(value.debugDescription)")
    }

    /// (value, claims mx.test): our id in a form Python's `email` decodes, beside a foreign id in
    /// the same form.
    static let decodedClaims: [(String, Bool)] = [
        ("=?us-ascii?Q?mx.test?=; dkim=pass", true), ("=?us-ascii?Q?mx.other.example?=; dkim=pass", false),
        ("mx.=?utf-8?B?dGVzdA==?=; dkim=pass", true), ("mx.=?utf-8?B?dGVzdA==?=.evil.example; dkim=pass", false),
        ("\"=?us-ascii?Q?MX.TEST?=\"; dkim=pass", true), ("\"=?us-ascii?Q?MX.OTHER?=\"; dkim=pass", false),
        ("(=?us-ascii?Q?c?=) =?x-unknown?Q?mx.test?= 1; dkim=pass", true), ("(=?us-ascii?Q?mx.test?=) other.example; dkim=pass", false),
        ("=?utf-16?B?//5tAHgALgB0AGUAcwB0AA==?=; dkim=pass", true), ("=?us-ascii?Q?mx.test;_dkim=3Dpass?=", true),
        ("=?utf-8?Q?mx.te=C5=BFt?=; dkim=pass", true), ("=?utf-8?Q?mx.te=C5=A1t?=; dkim=pass", false),
        ("=?us-ascii?Q?=3D=3Fus-ascii=3FQ=3Fmx.test=3F=3D?=; dkim=pass", true),
        ("=?us-ascii?Q?=3D=3Fus-ascii=3FQ=3Fmx.other=3F=3D?=; dkim=pass", false),
        ("=?us-ascii?Q?mx.test?= .evil; dkim=pass", true), ("=?utf-8?Q?mx.test=C2=A0?=; dkim=pass", true),
        ("=?utf-8?Q?mx.test=C2=A0.evil?=; dkim=pass", true), ("=?utf-8?Q?other=C2=A0mx.test?=; dkim=pass", false),
    ]

    @Test("a field claims our authserv-id when a reader decoding its encoded words reads ours", arguments: decodedClaims)
    func claimsOurIDDecoded(value: String, claimed: Bool) {
        #expect(Payload.claims(Array(value.utf8), authservID: "mx.test") == claimed, "\(value.debugDescription)")
    }
}
