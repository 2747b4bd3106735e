import DKIM
import MIME
import Testing
import Trust

/// The signed view: what one passing signature vouches for, read the way it reads it.
@Suite("SignedView")
struct SignedViewTests {
    static let allSigned = [
        "from", "to", "cc", "subject", "date", "message-id", "mime-version",
        "content-type", "content-transfer-encoding",
    ]

    static func pass(_ headers: [String] = allSigned, c: String = "relaxed/relaxed") -> DKIMVerification {
        DKIMVerification(
            result: .pass, reason: "", domain: "epicsteak.example", selector: "s", algorithm: "rsa-sha256",
            signedHeaders: headers, canonicalization: DKIMCanonicalization(tag: c))
    }

    static func message(_ header: [String], _ body: String) -> Message {
        Message(bytes: Array((header.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8))
    }

    static let top = [
        "From: a@epicsteak.example", "To: Jane <Jane@Example.org>", "Subject: Table",
        "MIME-Version: 1.0",
    ]
    /// A multipart whose first part is a note without Content-Type, followed by the HTML part.
    static func mixed(noteHeaderEnd: String) -> Message {
        message(
            top + ["Content-Type: multipart/mixed; boundary=b"],
            "--b\r\nContent-Disposition: inline\r\n\(noteHeaderEnd)\r\nContent-Type: text/html\r\n\r\n<p>note</p>\r\n"
                + "--b\r\nContent-Type: text/html\r\n\r\n<p>genuine</p>\r\n--b--\r\n")
    }

    static func view(_ message: Message, _ signature: DKIMVerification = pass(), whole: Bool = true) -> SignedView? {
        if case .read(let view) = SignedView.read(message, signature: signature, wholeMessage: whole) { return view }
        return nil
    }

    static func refusal(_ message: Message, _ signature: DKIMVerification = pass(), whole: Bool = true) -> TrustRefusal? {
        if case .refused(let refusal) = SignedView.read(message, signature: signature, wholeMessage: whole) { return refusal }
        return nil
    }

    @Test("a message whose fields are signed once is read as it is, not parsed again")
    func ordinaryMessageIsItsOwnView() throws {
        let message = Self.mixed(noteHeaderEnd: "")
        let view = try #require(Self.view(message))
        #expect(!view.isCanonicalReading)
        #expect(view.message.bytes == message.bytes)
        #expect(!view.hasUnsignedSubject)
        #expect(view.recipients.map(\.address) == ["Jane@Example.org"])
    }

    @Test(
        "relaxed: a line of white space ending a part's header is read as the empty line it hashes as",
        arguments: [" ", "\t", "  \t "])
    func whitespaceLineReadAsEmpty(_ line: String) throws {
        let attacked = Self.mixed(noteHeaderEnd: line)
        // The ordinary reading takes the note's text for header fields and its markup for HTML.
        #expect(attacked.htmlParts.count == 2)
        let view = try #require(Self.view(attacked))
        #expect(view.isCanonicalReading)
        #expect(view.message.htmlParts.count == 1)
        #expect(view.message.htmlParts.map { view.message.text(of: $0) } == ["<p>genuine</p>"])
        // Read again, the canonical body is its own view: canonicalization is idempotent.
        let again = try #require(Self.view(view.message))
        #expect(!again.isCanonicalReading)
    }

    @Test("simple body canonicalization signs the white space itself: no second reading")
    func simpleBodyIsNotReparsed() throws {
        let view = try #require(Self.view(Self.mixed(noteHeaderEnd: " "), Self.pass(c: "relaxed/simple")))
        #expect(!view.isCanonicalReading)
    }

    @Test("a large message analysed from its skeleton cannot be read again: not verifiable")
    func largeMessageNeedingReparse() {
        #expect(Self.refusal(Self.mixed(noteHeaderEnd: " "), whole: false) == .structureNotVerifiable)
        #expect(Self.view(Self.mixed(noteHeaderEnd: ""), whole: false) != nil)
    }

    @Test("a top-level MIME field present but not in h= refuses", arguments: SignedView.structureFields)
    func unsignedStructureField(_ name: String) {
        let message = Self.message(Self.top + ["Content-Type: text/html", "Content-Transfer-Encoding: 7bit"], "<p>x</p>\r\n")
        #expect(Self.refusal(message, Self.pass(Self.allSigned.filter { $0 != name })) == .unsignedStructure(name))
    }

    @Test("an absent MIME field need not be signed: nobody's instance decides the reading")
    func absentStructureField() {
        let message = Self.message(["From: a@epicsteak.example"], "text\r\n")
        #expect(Self.view(message, Self.pass(["from"])) != nil)
    }

    @Test("a repeated singleton field refuses, whichever is signed", arguments: SignedView.singletonFields)
    func duplicateSingleton(_ name: String) {
        let message = Self.message(Self.top + ["\(name): x", "\(name.uppercased()): y"], "x\r\n")
        let refusal = SignedView.messageRefusal(message)
        #expect(refusal == (name == "from" ? .multipleFrom(count: 3) : .duplicateField(name)))
    }

    @Test("a part with two Content-Transfer-Encoding fields refuses")
    func nestedDuplicate() {
        let message = Self.message(
            Self.top + ["Content-Type: multipart/mixed; boundary=b"],
            "--b\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: 7bit\r\n"
                + "Content-Transfer-Encoding: base64\r\n\r\nPHA+\r\n--b--\r\n")
        #expect(Self.refusal(message) == .duplicateField("content-transfer-encoding"))
    }

    @Test("fields past the header limit: nothing is vouched for")
    func headerLimit() {
        let filler = (0..<Limits.maxHeaderFields).map { "X-F\($0): 1" }
        let message = Self.message(Self.top + filler + ["From: b@attacker.example"], "x\r\n")
        #expect(message.header.isTruncated)
        #expect(SignedView.messageRefusal(message) == .headerLimit)
    }

    @Test(
        "white space in a boundary refuses under relaxed canonicalization only",
        arguments: [("relaxed/relaxed", false), ("relaxed/simple", false), ("simple/relaxed", false), ("simple/simple", true)])
    func boundaryWithWhitespace(_ c: String, _ readable: Bool) {
        let message = Self.message(
            Self.top + ["Content-Type: multipart/alternative; boundary=\"b c\""],
            "--b c\r\nContent-Type: text/html\r\n\r\n<p>x</p>\r\n--b c--\r\n")
        #expect((Self.view(message, Self.pass(c: c)) != nil) == readable)
        if !readable { #expect(Self.refusal(message, Self.pass(c: c)) == .whitespaceInBoundary) }
    }

    @Test("only signed To and Cc name recipients; an unsigned Subject is not the view's")
    func recipientsAndSubject() throws {
        let message = Self.message(Self.top + ["Cc: bob@example.net"], "x\r\n")
        let view = try #require(Self.view(message, Self.pass(["from", "cc", "mime-version"])))
        #expect(view.recipients.map(\.address) == ["bob@example.net"])
        #expect(view.hasUnsignedRecipients)
        #expect(view.hasUnsignedSubject)
    }
}

@Suite("TrustPolicy with --me")
struct RecipientBindingTests {
    static func decide(_ me: [String], to: String, signed: [String] = SignedViewTests.allSigned) -> TrustDecision {
        let policy = TrustPolicy(allowedDomains: ["epicsteak.example"], recipients: me)
        let message = SignedViewTests.message(["From: a@epicsteak.example", "To: \(to)"], "x\r\n")
        return policy.decide(message, signatures: [SignedViewTests.pass(signed)]).decision
    }

    @Test(
        "an address or a whole domain, in any case, names the user",
        arguments: [
            (["jane@example.org"], true), (["JANE@example.org"], true), (["@example.org"], true),
            (["@EXAMPLE.ORG"], true), (["@org"], false), (["jane@example.net"], false), (["ane@example.org"], false),
        ])
    func matches(_ me: [String], _ trusted: Bool) {
        let decision = Self.decide(me, to: "Jane Doe <Jane@Example.org>")
        #expect(decision.trusted == trusted)
        if !trusted { #expect(decision.refusal == .recipientNotListed) }
    }

    @Test("without --me the recipient is not checked, and says so")
    func notChecked() {
        #expect(Self.decide([], to: "bob@example.net").recipient == .notChecked)
        #expect(Self.decide(["jane@example.org"], to: "jane@example.org").recipient == .matched("jane@example.org"))
    }

    @Test("a To the signature does not cover cannot bind the message")
    func unsignedTo() {
        let decision = Self.decide(["jane@example.org"], to: "jane@example.org", signed: ["from"])
        #expect(!decision.trusted)
        #expect(decision.refusal == .recipientNotSigned)
    }
}
