@testable import DNS
import Testing

@Suite struct KeysFileTests {
    @Test func concatenatesStringsAndIgnoresComments() {
        let file = KeysFile(text: """
            ; a comment
            # another comment
            sel._domainkey.Example.COM. TXT "v=DKIM1; k=rsa; " "p=ABC"
            other._domainkey.example.org 3600 IN TXT "p=\\"quoted\\" \\\\ back"
            """)
        #expect(file.lookupTXT("sel._domainkey.example.com") == .found(["v=DKIM1; k=rsa; p=ABC"]))
        #expect(file.lookupTXT("SEL._domainkey.example.com.") == .found(["v=DKIM1; k=rsa; p=ABC"]))
        #expect(file.lookupTXT("other._domainkey.example.org") == .found(["p=\"quoted\" \\ back"]))
        #expect(file.lookupTXT("absent._domainkey.example.com") == .notFound)
    }

    @Test func severalLinesAreSeveralRecords() {
        let file = KeysFile(text: "a.example TXT \"one\"\nA.example. IN TXT \"two\"\n")
        #expect(file.lookupTXT("a.example") == .found(["one", "two"]))
    }

    @Test(arguments: [
        "name.example",                       // no type
        "name.example A 192.0.2.1",           // not TXT
        "name.example TXT \"unterminated",    // unclosed string
        "name.example TXT",                   // no strings
    ])
    func malformedLinesAreSkipped(line: String) {
        let file = KeysFile(text: line + "\nok.example TXT \"fine\"")
        #expect(file.lookupTXT("name.example") == .notFound)
        #expect(file.lookupTXT("ok.example") == .found(["fine"]))
        #expect(file.skippedLines == 1)
    }

    @Test func crlfLinesAndDecimalEscapes() {
        let file = KeysFile(text: "x.example TXT \"a\\059b\"\r\ny.example TXT \"c\"\r\n")
        #expect(file.lookupTXT("x.example") == .found(["a;b"]))
        #expect(file.lookupTXT("y.example") == .found(["c"]))
    }

    /// The first lookups scan the lines, later ones use the index: the answers must not
    /// depend on which (names in any case, with trailing dots, several lines a name, comments).
    @Test func answersAreTheSameBeforeAndAfterTheIndex() {
        let count = KeysFile.scansBeforeIndex * 3
        var text = "; keys\n"
        for i in 0..<count {
            text += "S\(i)._DomainKey.Example.COM. TXT \"v=DKIM1; p=\(i)\"\r\n"
            if i % 3 == 0 { text += "  s\(i)._domainkey.example.com 60 IN TXT \"second \(i)\"\n" }
            if i % 5 == 0 { text += "# s\(i)._domainkey.example.com TXT \"commented\"\n" }
        }
        let file = KeysFile(text: text)
        for pass in 0..<2 {
            for i in 0..<count {
                let expected = ["v=DKIM1; p=\(i)"] + (i % 3 == 0 ? ["second \(i)"] : [])
                #expect(file.lookupTXT("s\(i)._domainkey.EXAMPLE.com.") == .found(expected), "pass \(pass), name \(i)")
                #expect(file.lookupTXT("s\(i)x._domainkey.example.com") == .notFound, "pass \(pass), name \(i)")
            }
        }
        #expect(file.skippedLines == 0)
    }

    @Test func missingFileThrows() {
        #expect(throws: KeysFile.Error.self) { try KeysFile(path: "/nonexistent/keys.zone") }
    }
}

@Suite struct CachingResolverTests {
    final class CountingResolver: TXTResolver {
        var calls = 0
        func lookupTXT(_ name: String) -> TXTLookupResult {
            calls += 1
            return name.hasPrefix("tmp") ? .temporaryFailure("down") : .found(["v=DKIM1; p=" + name])
        }
    }

    @Test func asksOncePerName() {
        let counting = CountingResolver()
        let cache = CachingResolver(wrapping: counting)
        #expect(cache.lookupTXT("a.example") == .found(["v=DKIM1; p=a.example"]))
        #expect(cache.lookupTXT("A.example.") == .found(["v=DKIM1; p=a.example"]))
        #expect(cache.lookupTXT("tmp.example") == .temporaryFailure("down"))
        #expect(cache.lookupTXT("tmp.example") == .temporaryFailure("down"))
        #expect(counting.calls == 2)
    }
}
