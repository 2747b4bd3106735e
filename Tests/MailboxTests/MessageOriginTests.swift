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

    @Test(
        "a Maildir file's delivery time is the time its name begins with, else its modification time",
        arguments: [
            ("/m/new/1795262400.M1P2.host", 1_795_262_400),
            ("/m/cur/1795262400.M1P2.host:2,S", 1_795_262_400),
            ("cur/999999999.M1.host:2,S", 999_999_999),
            // Not a Maildir's name: the file's time.
            ("/m/cur/0.host:2,S", 42),
            ("/m/cur/17952624.M1.host", 42),
            ("/m/cur/1795262400host", 42),
            ("/m/tmp/1795262400.M1P2.host", 42),
            ("/m/1795262400.M1P2.host", 42),
        ])
    func deliveredAt(path: String, time: Int64) {
        #expect(MessageOrigin(path: path, stamp: FileStamp(size: 1, modified: 42)).deliveredAt == time)
    }

    @Test("stdin and mbox messages have no delivery time of their own; a spooled copy without a path its file's")
    func noDeliveryTime() {
        #expect(MessageOrigin().deliveredAt == nil)
        #expect(MessageOrigin(path: "/var/mail/jane", mboxIndex: 3, stamp: FileStamp(size: 1, modified: 42)).deliveredAt == nil)
        #expect(MessageOrigin(path: nil, stamp: FileStamp(size: 1, modified: 42)).deliveredAt == 42)
    }
}
