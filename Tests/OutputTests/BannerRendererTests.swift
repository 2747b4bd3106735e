import Pipeline
import Testing

@testable import Output

@Suite("How a banner names its message")
struct BannerRendererTests {
    @Test(
        "a file is named by its folder and name, however its path is written",
        arguments: [
            ("/home/jane/Maildir/cur/1795.M1P2.host:2,S", "cur/1795.M1P2.host:2,S"),
            ("message.eml", "message.eml"),
            ("/m//new///x/", "new/x"),
            ("/", ""),
            ("", ""),
            ("/é/ü", "é/ü"),
        ])
    func fileName(path: String, name: String) {
        #expect(BannerRenderer.fileName(path) == name)
        // What the former String operations made of it.
        #expect(BannerRenderer.fileName(path) == path.split(separator: "/").suffix(2).joined(separator: "/"))
    }
}
