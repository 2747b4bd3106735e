import EventStore
import Testing

@testable import Feed

@Suite("form bodies (application/x-www-form-urlencoded)")
struct FormBodyTests {
    @Test("pairs with + for a space and percent-encoded UTF-8")
    func pairs() {
        #expect(
            FormBody.read(Array("url=https%3A%2F%2Fa.example%2Fb%3Fc%3Dd&token=ab+cd&empty=".utf8)) == [
                "url": "https://a.example/b?c=d", "token": "ab cd", "empty": "",
            ])
        #expect(FormBody.read(Array("name=J%C3%BCrgen".utf8)) == ["name": "Jürgen"])
    }

    @Test("a field given twice, malformed percent-encoding, text that is not UTF-8 or a body too large: unreadable")
    func refused() {
        #expect(FormBody.read(Array("token=a&token=b".utf8)) == nil)
        #expect(FormBody.read(Array("url=%zz".utf8)) == nil)
        #expect(FormBody.read(Array("url=%ff%fe".utf8)) == nil)
        #expect(FormBody.read(Array(repeating: UInt8(ascii: "a"), count: FormBody.maxBytes + 1)) == nil)
    }

    @Test("the anti-forgery token depends on the account and on the server's key")
    func tokens() {
        let one = PageActions(secret: Array(repeating: 1, count: 32)) { _, _ in nil }
        let other = PageActions(secret: Array(repeating: 2, count: 32)) { _, _ in nil }
        #expect(one.token(for: nil).count == 64)
        #expect(one.token(for: nil) == one.token(for: nil))
        #expect(one.token(for: nil) != other.token(for: nil))
        #expect(one.token(for: nil) != one.token(for: .init(normalizedAddress: "jane@example.org")))
    }
}
