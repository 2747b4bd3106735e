import Testing

@testable import MIME

@Suite struct ContentTypeTests {
    @Test func parsesQuotedParametersAndComments() throws {
        let type = try #require(ContentType.parse(Array("Text/HTML (markup); charset = \"UTF-8\" (the charset); Format=flowed".utf8)))
        #expect(type.mediaType == "text/html")
        #expect(type.charset == "UTF-8")
        #expect(type.parameters["format"] == "flowed")
    }

    @Test("a missing \";\" before the first parameter is forgiven; spaces around \"/\" are not a parameter")
    func missingSemicolon() throws {
        let type = try #require(ContentType.parse(Array("multipart/mixed boundary=\"b1\"; charset=x".utf8)))
        #expect(type.mediaType == "multipart/mixed")
        #expect(type.parameters["boundary"] == "b1")
        #expect(type.parameters["charset"] == "x")
        #expect(try #require(ContentType.parse(Array("text / plain ; charset=utf-8".utf8))).mediaType == "text/plain")
    }

    @Test func quotedValueMayHoldSemicolons() throws {
        let type = try #require(ContentType.parse(Array("multipart/mixed; boundary=\"a;b=c\"; x=1".utf8)))
        #expect(type.parameters["boundary"] == "a;b=c")
        #expect(type.parameters["x"] == "1")
    }

    @Test func rfc2231ContinuationsJoinOctetsBeforeCharsetDecoding() throws {
        let type = try #require(ContentType.parse(Array("application/octet-stream; name*0*=UTF-8''%E2%98; name*1*=%83.txt".utf8)))
        #expect(type.parameters["name"] == "☃.txt")
    }

    @Test func rfc2231MixedSectionsAndLanguage() throws {
        let value =
            "message/external-body; access-type=URL;\r\n URL*0=\"ftp://\";\r\n URL*1=\"cs.utk.edu/pub/moore/bulk-mailer/bulk-mailer.tar\"; title*=us-ascii'en-us'This%20is%20%2A%2A%2Afun%2A%2A%2A"
        let type = try #require(ContentType.parse(Array(value.utf8)))
        #expect(type.parameters["url"] == "ftp://cs.utk.edu/pub/moore/bulk-mailer/bulk-mailer.tar")
        #expect(type.parameters["title"] == "This is ***fun***")
    }

    @Test func rfc2231CharsetThroughIconv() throws {
        let type = try #require(ContentType.parse(Array("text/plain; name*=iso-8859-2''%BFa%BC%F1.txt".utf8)))
        #expect(type.parameters["name"] == "żaźń.txt")
    }

    @Test func encodedWordInParameter() throws {
        let type = try #require(ContentType.parse(Array("application/msword; name==?koi8-r?B?89DJ08/LLmRvYw==?=".utf8)))
        #expect(type.parameters["name"] == "Список.doc")
    }

    @Test func withoutSubtypeIsUnreadable() {
        #expect(ContentType.parse(Array("text".utf8)) == nil)
        let message = Message(bytes: Fixture.lf("Content-Type: garbage\n\nhello"))
        #expect(message.root.contentType.mediaType == "text/plain")
    }

    @Test func dispositionFilename() {
        let message = Message(
            bytes: Fixture.lf("Content-Type: application/pdf; name=a.pdf\nContent-Disposition: ATTACHMENT; filename*=utf-8''%C3%A9t%C3%A9.pdf\n\nx"))
        #expect(message.root.isAttachment)
        #expect(message.root.filename == "été.pdf")
    }
}

@Suite struct ParameterTests {
    @Test(arguments: [
        ("text/plain; charset=us-ascii (Plain text)", "charset", "us-ascii"),
        // After white space, "(" starts a comment (RFC 2045 §5.1 CFWS), as Python reads it.
        ("application/pdf; name=Ticket (1).pdf", "name", "Ticket"),
        ("application/pdf; name=Ticket(1).pdf; x=y", "name", "Ticket(1).pdf"),
        ("text/plain; (comment) charset=\"utf-8\"", "charset", "utf-8"),
        ("text/plain; CHARSET=UTF-8", "charset", "UTF-8"),
    ])
    func readsParameter(_ value: String, _ name: String, _ expected: String) throws {
        let type = try #require(ContentType.parse(Array(value.utf8)))
        #expect(type.parameters[name] == expected)
    }
}
