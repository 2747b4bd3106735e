import Mailbox
import Testing

@Suite("what looks like mail in a directory scan reads")
struct MessageShapeTests {
    @Test(
        "messages and mboxes look like mail, with LF or CRLF, however little of the header the prefix holds",
        arguments: [
            "From jane@example.com Tue Nov 17 07:21:50 2026\nFrom: jane@example.com\n\nhi\n",
            "Subject: 1\n\nx",
            "Return-Path: <a@b.example>\r\nReceived: from x\r\n\tby y\r\nFrom: a@b.example\r\n\r\nbody",
            "DKIM-Signature: v=1; a=rsa-sha256;\n d=epicsteak.example\nFrom : a@b.example\n",
            "X-Mailer: something\nX-Other: 2\nMIME-Version: 1.0\n\n",
        ])
    func mail(text: String) {
        #expect(MessageShape.looksLikeMessage(Array(text.utf8)[...]))
    }

    @Test(
        "notes, documents, front matter and binary files do not",
        arguments: [
            "Meeting notes\nSubject: budget\n",
            "title: Trip\ndate: 2026-05-01\n---\nText\n",
            "Title: x\nsome text without a colon\nFrom: y\n",
            "X-Custom: 1\nX-Other: 2\n\nbody",
            "%PDF-1.7\n%\u{e2}\u{e3}\n",
            "\nFrom: after an empty line\n",
            "Subject: no line end",
            "Sub ject: spaces are not in a name\nFrom: x\n",
            "",
        ])
    func notMail(text: String) {
        #expect(!MessageShape.looksLikeMessage(Array(text.utf8)[...]))
    }
}
