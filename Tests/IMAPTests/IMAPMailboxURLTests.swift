import Testing

@testable import IMAP

@Suite("IMAP mailbox URLs")
struct IMAPMailboxURLTests {
    @Test("imaps://USER@HOST/MAILBOX: the user and mailbox decoded, the port 993, the key written in one form")
    func parses() throws {
        let url = try IMAPMailboxURL("IMAPS://jane%40example.org@IMAP.Example.org/Travel%20Plans")
        #expect(url.user == "jane@example.org")
        #expect(url.host == "imap.example.org")
        #expect(url.port == 993)
        #expect(url.mailbox == "Travel Plans")
        #expect(url.description == "imaps://jane%40example.org@imap.example.org:993/Travel%20Plans")
        #expect(url.quotedMailbox == "\"Travel Plans\"")
        #expect(try IMAPMailboxURL("imaps://jane@127.0.0.1:10993/INBOX/").port == 10993)
        #expect(url.implicitTLS)
    }

    @Test("imap://USER@HOST/MAILBOX: STARTTLS required, the port 143, a key of its own")
    func parsesStartTLS() throws {
        let url = try IMAPMailboxURL("IMAP://jane@imap.example.org/INBOX")
        #expect(!url.implicitTLS)
        #expect(url.port == 143)
        #expect(url.description == "imap://jane@imap.example.org:143/INBOX")
        #expect(url.serverURL == "imap://jane@imap.example.org:143/")
        #expect(try IMAPMailboxURL("imaps://jane@imap.example.org/INBOX").description != url.description)
    }

    @Test(
        "refused: another scheme, a password in the URL, no user, no mailbox, parameters, a bad port, a NUL, a non-ASCII name",
        arguments: [
            "pop3://jane@imap.example.org/INBOX", "imapx://jane@imap.example.org/INBOX", "imap://jane:secret@imap.example.org/INBOX",
            "imaps://jane:secret@imap.example.org/INBOX", "imaps://imap.example.org/INBOX",
            "imaps://jane@imap.example.org/", "imaps://jane@imap.example.org", "imaps://jane@imap.example.org/INBOX;UID=4",
            "imaps://jane@imap.example.org/INBOX?SUBJECT%20x", "imaps://jane@imap.example.org:0/INBOX",
            "imaps://jane@imap.example.org:99999/INBOX", "imaps://jane@imap.example.org:x/INBOX", "imaps://jane@imap.example.org/IN%00BOX",
            "imaps://jane@imap.example.org/Reisen%C3%A4", "imaps://jane;AUTH=*@imap.example.org/INBOX", "imaps://jane@imap example.org/INBOX",
            "imaps://jane@imap.example.org/IN%0D%0ABOX",
        ])
    func refuses(_ text: String) {
        #expect(throws: IMAPError(.invalidURL, "")) { try IMAPMailboxURL(text) }
    }

    @Test("a quote or backslash in a mailbox name is escaped in the quoted string (RFC 9051 §4.3)")
    func quoting() throws {
        #expect(try IMAPMailboxURL("imaps://jane@h.example/a%22b%5Cc").quotedMailbox == #""a\"b\\c""#)
    }
}
