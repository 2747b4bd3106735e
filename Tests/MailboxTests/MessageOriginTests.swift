import Mailbox
import Testing

@Suite("Message identity for incremental scans")
struct MessageOriginTests {
    @Test(
        "a Maildir message keeps its key when it moves from new/ to cur/ and gains flags",
        arguments: [
            ("/m/new/1795.M1P2.host", "/m/1795.M1P2.host"),
            ("/m/cur/1795.M1P2.host:2,S", "/m/1795.M1P2.host"),
            ("/m/.Travel/cur/1795.M1P2.host;2,FS", "/m/.Travel/1795.M1P2.host"),
            ("relative/message.eml", "relative/message.eml"),
            ("cur/1795.M1P2.host:2,S", "1795.M1P2.host"),
            ("/cur/1795.M1P2.host:2,", "/1795.M1P2.host"),
            ("/m/current/1795:2,S", "/m/current/1795"),
            ("/m//new/x", "/m//x"),
            ("/m/ñew/cur/é:2,S", "/m/ñew/é"),
            ("bare", "bare"),
        ])
    func stateKey(path: String, key: String) {
        #expect(MessageOrigin(path: path).stateKey == key)
    }

    @Test("stdin and mbox messages have no file identity")
    func noKey() {
        #expect(MessageOrigin().stateKey == nil)
        #expect(MessageOrigin(path: "/var/mail/jane", mboxIndex: 3).stateKey == nil)
    }
}
