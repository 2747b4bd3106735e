import Testing

@testable import MIME

@Suite struct PartTreeTests {
    static let nested = """
        From: Shop <orders@shop.example>
        Subject: Your order
        MIME-Version: 1.0
        Content-Type: multipart/mixed; boundary="outer"

        This is the preamble.
        --outer
        Content-Type: multipart/alternative; boundary=inner

        --inner
        Content-Type: text/plain; charset=utf-8

        Plain caf\u{E9}
        --inner  \t
        Content-Type: text/html; charset=utf-8

        <p>HTML</p>
        --inner--
        --outer
        Content-Type: text/html
        Content-Disposition: attachment; filename=receipt.html

        <p>attached</p>
        --outer
        Content-Type: message/rfc822

        Subject: inner message
        Content-Type: text/html

        <p>forwarded</p>
        --outer--
        epilogue

        """

    @Test func nestedMultipartTree() throws {
        for message in Fixture.both(Self.nested) {
            let root = message.root
            #expect(root.contentType.mediaType == "multipart/mixed")
            #expect(root.children.count == 3)
            let alternative = root.children[0]
            #expect(alternative.children.map(\.contentType.mediaType) == ["text/plain", "text/html"])
            #expect(alternative.children[0].depth == 2)
            #expect(message.text(of: alternative.children[0]) == "Plain café")
            #expect(message.text(of: alternative.children[1]) == "<p>HTML</p>")
            let preamble = try #require(root.preambleRange)
            #expect(String(decoding: message.bytes[preamble], as: UTF8.self) == "This is the preamble.")
            let epilogue = try #require(root.epilogueRange)
            #expect(String(decoding: message.bytes[epilogue], as: UTF8.self).hasPrefix("epilogue"))
            // message/rfc822 is parsed as a nested message.
            let forwarded = root.children[2]
            #expect(forwarded.children.count == 1)
            #expect(forwarded.children[0].contentType.mediaType == "text/html")
            #expect(message.text(of: forwarded.children[0]) == "<p>forwarded</p>")
            // Only the message's own, non-attached HTML.
            #expect(message.htmlParts.map { message.text(of: $0) } == ["<p>HTML</p>"])
            #expect(root.children[1].isAttachment)
            #expect(root.children[1].filename == "receipt.html")
            #expect(!message.diagnostics.contains { $0.code == .missingCloseDelimiter })
        }
    }

    @Test func missingCloseDelimiterKeepsTrailingNewline() {
        let text = "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nbody\n"
        for message in Fixture.both(text) {
            #expect(message.root.children.count == 1)
            #expect(message.text(of: message.root.children[0]) == "body\n")
            #expect(message.diagnostics.contains { $0.code == .missingCloseDelimiter })
        }
    }

    @Test func innerMissingCloseStaysInside() {
        let text = """
            Content-Type: multipart/mixed; boundary=a

            --a
            Content-Type: multipart/alternative; boundary=b

            --b

            first
            --a
            Content-Type: text/plain

            second
            --a--

            """
        for message in Fixture.both(text) {
            #expect(message.root.children.count == 2)
            #expect(message.root.children[0].children.count == 1)
            #expect(message.text(of: message.root.children[0].children[0]) == "first")
            #expect(message.text(of: message.root.children[1]) == "second")
        }
    }

    @Test func partsWithoutHeaderAndDigestDefault() {
        let text = """
            Content-Type: multipart/mixed; boundary=x

            --x

            no header here
            --x
            just text, no blank line
            --x--

            """
        for message in Fixture.both(text) {
            #expect(message.root.children.map(\.contentType.mediaType) == ["text/plain", "text/plain"])
            #expect(message.root.children.map { message.text(of: $0) } == ["no header here", "just text, no blank line"])
        }
        let digest = "Content-Type: multipart/digest; boundary=d\n\n--d\n\nSubject: one\n\nbody one\n--d--\n"
        let message = Message(bytes: Fixture.lf(digest))
        #expect(message.root.children.first?.contentType.mediaType == "message/rfc822")
        #expect(message.root.children.first?.children.first.map { message.text(of: $0) } == "body one")
    }

    @Test func boundaryPrefixDoesNotSplit() {
        let text = "Content-Type: multipart/mixed; boundary=ab\n\n--ab\n\none\n--abc\nstill one\n--ab--\n"
        let message = Message(bytes: Fixture.lf(text))
        #expect(message.root.children.count == 1)
        #expect(message.text(of: message.root.children[0]) == "one\n--abc\nstill one")
    }

    @Test func depthIsCapped() {
        var text = ""
        for level in 0...(Limits.maxPartDepth + 2) {
            text += "Content-Type: multipart/mixed; boundary=b\(level)\n\n--b\(level)\n"
        }
        text += "\nleaf\n"
        let message = Message(bytes: Fixture.lf(text))
        #expect(message.diagnostics.contains { $0.code == .partsTooDeep })
        #expect(message.root.allParts.map(\.depth).max() == Limits.maxPartDepth)
    }

    @Test func missingBoundaryParameterIsALeafWithDiagnostic() {
        let message = Message(bytes: Fixture.lf("Content-Type: multipart/mixed\n\nbody"))
        #expect(message.root.children.isEmpty)
        #expect(message.diagnostics.contains { $0.code == .missingBoundary })
    }
}

@Suite struct MessageTextTests {
    @Test func htmlWithoutCharsetUsesMetaDeclaration() {
        let text =
            "Content-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n<html><head><meta http-equiv=3D\"Content-Type\" content=3D\"text/html; charset=3Diso-8859-2\"></head><body>=BFaba</body></html>\n"
        for message in Fixture.both(text) {
            #expect(message.text(of: message.root).contains("<body>żaba</body>"))
            #expect(message.htmlParts.count == 1)
        }
    }

    @Test func headerFieldsOfTheMessage() throws {
        let text = """
            From: "Cascadia Air" <no-reply@Cascadia-Air.example>
            Subject: =?UTF-8?Q?Your_flight_to_Seattle_=E2=9C=88?=
            Message-ID:   <abc.123@cascadia-air.example> (sent by the booking system)
            Date: Sun, 22 Nov 2026 10:15:00 -0800
            Content-Type: text/plain; charset=utf-8

            Hello
            """
        for message in Fixture.both(text) {
            #expect(message.subject == "Your flight to Seattle ✈")
            #expect(message.from == [MailboxAddress(displayName: "Cascadia Air", address: "no-reply@Cascadia-Air.example")])
            #expect(message.from.first?.domain == "cascadia-air.example")
            #expect(message.messageID == "<abc.123@cascadia-air.example>")
            #expect(message.date == MessageDate(epochSeconds: 1_795_371_300, offsetSeconds: -28800))
            #expect(message.text(of: message.root) == "Hello")
            #expect(message.diagnostics.isEmpty)
        }
    }
}

@Suite struct PartLimitTests {
    @Test func partCountIsCapped() {
        var text = "Content-Type: multipart/mixed; boundary=p\n\n"
        for index in 0..<(Limits.maxParts + 5) { text += "--p\n\n\(index)\n" }
        text += "--p--\n"
        let message = Message(bytes: Fixture.lf(text))
        #expect(message.root.allParts.count == Limits.maxParts)
        #expect(message.diagnostics.contains { $0.code == .tooManyParts })
    }

    @Test func bodyDecodingProblemsAreReported() {
        let text = """
            Content-Type: multipart/mixed; boundary=q

            --q
            Content-Type: text/plain; charset=utf-8
            Content-Transfer-Encoding: base64

            w6l0w6k*!gY2Fmw6k=
            --q
            Content-Type: text/html; charset=utf-8
            Content-Transfer-Encoding: quoted-printable

            <p>50% =ZZ off</p>
            --q--
            """
        for message in Fixture.both(text) {
            let codes = Set(message.diagnostics.map(\.code))
            #expect(codes.contains(.invalidBase64))
            #expect(codes.contains(.invalidQuotedPrintable))
            #expect(message.text(of: message.root.children[0]) == "été café")
            #expect(message.htmlParts.map { message.text(of: $0) } == ["<p>50% =ZZ off</p>"])
        }
    }

    /// RFC 2046 §5.1.2 nesting, as a streaming reader with a stack of boundaries sees it.
    @Test("an inner multipart reusing its parent's boundary keeps the lines of that boundary")
    func innerReusesOuterBoundary() {
        let text =
            "Content-Type: multipart/mixed; boundary=\"a\"\n\n--a\nContent-Type: multipart/mixed; boundary=\"a\"\n\n--a\nContent-Type: text/plain\n\nbody\n"
        let message = Message(bytes: Array(text.utf8))
        let inner = message.root.children.first
        #expect(message.root.children.count == 1)
        #expect(inner?.contentType.isMultipart == true)
        #expect(inner?.children.count == 1)
        if let leaf = inner?.children.first { #expect(message.text(of: leaf) == "body\n") }
    }

    @Test("an enclosing delimiter ends an unterminated inner multipart; the outer goes on")
    func outerDelimiterEndsInner() {
        let text =
            "Content-Type: multipart/mixed; boundary=\"1\"\n\n--1\nContent-Type: multipart/mixed; boundary=\"2\"\n\n--2\n\none\n--2\n\ntwo\n--1\nContent-Type: text/html\n\nthree\n--1--\n"
        let message = Message(bytes: Array(text.utf8))
        #expect(message.root.children.map(\.contentType.mediaType) == ["multipart/mixed", "text/html"])
        #expect(message.root.children.first?.children.count == 2)
        if let two = message.root.children.first?.children.last { #expect(message.text(of: two) == "two") }
        if let three = message.root.children.last { #expect(message.text(of: three) == "three") }
        #expect(message.diagnostics.contains { $0.code == .missingCloseDelimiter })
    }
}
