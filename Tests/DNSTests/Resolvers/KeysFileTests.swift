import Glibc
import Testing

@testable import DNS

@Suite struct KeysFileTests {
    @Test func concatenatesStringsAndIgnoresComments() {
        let file = KeysFile(
            text: """
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
        "name.example",  // no type
        "name.example A 192.0.2.1",  // not TXT
        "name.example TXT \"unterminated",  // unclosed string
        "name.example TXT",  // no strings
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

    /// Many names, each found twice over (names in any case, with trailing dots, several lines
    /// a name, comments between them).
    @Test func manyNamesInAnyCase() {
        let count = 24
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

    /// The first lookups scan the lines, later ones use an index: both find the same records,
    /// non-ASCII names (folded by Unicode rules) included.
    @Test func scannedAndIndexedLookupsAgree() {
        let file = KeysFile(
            text: """
                Sel._domainKey.Exämple.COM. TXT "a"
                \u{212A}ey._domainkey.example.com TXT "kelvin"
                sel._domainkey.example.com TXT "b"
                ; sel._domainkey.example.com TXT "comment"
                sel._domainkey.EXÄMPLE.com TXT "c"
                """)
        let questions = [
            "sel._domainkey.exämple.com", "SEL._DOMAINKEY.EXÄMPLE.COM.", "sel._domainkey.example.com.",
            "key._domainkey.example.com", "sel._domainkey.example", "sel._domainkey.example.com..",
        ]
        let expected: [TXTLookupResult] = [
            .found(["a", "c"]), .found(["a", "c"]), .found(["b"]),
            .found(["kelvin"]), .notFound, .found(["b"]),
        ]
        for pass in 0..<3 {
            #expect(questions.map(file.lookupTXT) == expected, "pass \(pass)")
        }
        #expect(file.skippedLines == 0)
    }

    /// Read whole whatever its size: the record after 100 KB of comments is found, from a
    /// regular file (sized by fstat) and from a pipe (read in steps).
    @Test func largeFilesAreReadToTheEnd() throws {
        let text =
            String(repeating: "; padding padding padding padding padding padding padding\n", count: 1_800)
            + "last._domainkey.example.com TXT \"v=DKIM1; p=END\"\n"
        let path = "/tmp/reservoir-keys-\(getpid()).zone"
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        #expect(text.utf8.count > 100_000)
        #expect(try KeysFile(path: path).lookupTXT("last._domainkey.example.com") == .found(["v=DKIM1; p=END"]))
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        let writer = pipeEnds[1]
        let bytes = Array(text.utf8)
        var thread = pthread_t()
        let box = Unmanaged.passRetained(WriterBox(fd: writer, bytes: bytes)).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                let job = Unmanaged<WriterBox>.fromOpaque(context!).takeRetainedValue()
                job.bytes.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let n = write(job.fd, raw.baseAddress! + offset, raw.count - offset)
                        if n <= 0 { break }
                        offset += n
                    }
                }
                close(job.fd)
                return nil
            }, box)
        defer { close(pipeEnds[0]) }
        let fromPipe = try KeysFile(path: "/proc/self/fd/\(pipeEnds[0])")
        pthread_join(thread, nil)
        #expect(fromPipe.lookupTXT("last._domainkey.example.com") == .found(["v=DKIM1; p=END"]))
    }

    final class WriterBox {
        let fd: Int32
        let bytes: [UInt8]
        init(fd: Int32, bytes: [UInt8]) {
            self.fd = fd
            self.bytes = bytes
        }
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
