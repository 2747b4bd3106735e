import Testing

@testable import MIME

@Suite struct EncodedWordTests {
    @Test(arguments: [
        ("=?UTF-8?B?SGVsbG8=?= =?UTF-8?B?IHdvcmxk?=", "Hello world"),
        ("=?ISO-8859-1?Q?Andr=E9?= Pirard", "André Pirard"),
        ("=?iso-8859-1?q?this=20is=20some=20text?=", "this is some text"),
        ("=?US-ASCII?Q?Keith_Moore?=", "Keith Moore"),
        ("(=?ISO-8859-1?Q?a?= =?ISO-8859-1?Q?b?=)", "(ab)"),
        ("=?ISO-8859-1?Q?a?=  \t =?ISO-8859-2?Q?_b?=", "a b"),
        ("Re: =?utf-8?q?caf=C3=A9?= now", "Re: café now"),
        // A UTF-8 character split between two adjacent words.
        ("=?UTF-8?B?4pg=?= =?UTF-8?B?gw==?=", "☃"),
        ("=?utf-8?Q?=E2=98?= =?utf-8?Q?=83_snow?=", "☃ snow"),
        ("=?UTF-8*en?Q?Hi?=", "Hi"),
        ("=?koi8-r?B?89DJ08/L?=", "Список"),
        ("=?iso-2022-jp?B?GyRCJCEkJCQlJCgkKhsoQg==?=", "ぁいぅえお"),
        ("plain =?x?Y?bad?= text", "plain =?x?Y?bad?= text"),
        ("=?utf-8?q?unterminated", "=?utf-8?q?unterminated"),
        ("=?utf-8?q?broken and =?utf-8?q?ok?=", "=?utf-8?q?broken and ok"),
        ("=?iso-8859-1?q?this is some text?=", "this is some text"),
    ])
    func decodes(_ input: String, _ expected: String) {
        #expect(HeaderText.decode(Array(input.utf8)).text == expected)
    }

    @Test func malformedWordIsKeptWithDiagnostic() {
        let result = HeaderText.decode(Array("a =?utf-8?X?abc?= b".utf8))
        #expect(result.text == "a =?utf-8?X?abc?= b")
        #expect(result.diagnostics.contains { $0.code == .invalidEncodedWord })
    }

    @Test func unknownCharsetFallsBackAndIsReported() {
        let result = HeaderText.decode(Array("=?x-nonsense-42?Q?caf=C3=A9?=".utf8))
        #expect(result.text == "café")
        #expect(result.diagnostics.contains { $0.code == .unknownCharset })
    }
}
