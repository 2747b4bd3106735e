import Testing

@testable import MIME

@Suite struct MailboxAddressTests {
    struct Case: Sendable, CustomStringConvertible {
        let value: String
        let expected: [(String?, String)]
        var description: String { value }
    }

    static let cases: [Case] = [
        Case(value: "John Doe <jdoe@machine.example>", expected: [("John Doe", "jdoe@machine.example")]),
        Case(value: "\"Joe Q. Public\" <john.q.public@example.com>", expected: [("Joe Q. Public", "john.q.public@example.com")]),
        Case(
            value: "Mary Smith <mary@x.test>, jdoe@example.org, Who? <one@y.test>",
            expected: [("Mary Smith", "mary@x.test"), (nil, "jdoe@example.org"), ("Who?", "one@y.test")]),
        Case(value: "\"Giant; \\\"Big\\\" Box\" <sysservices@example.net>", expected: [("Giant; \"Big\" Box", "sysservices@example.net")]),
        Case(
            value: "A Group:Ed Jones <c@a.test>,joe@where.test,John <jdoe@one.test>;",
            expected: [("Ed Jones", "c@a.test"), (nil, "joe@where.test"), ("John", "jdoe@one.test")]),
        Case(value: "Undisclosed recipients:;", expected: []),
        Case(value: "Pete(A nice \\) chap) <pete(his account)@silly.test(his host)>", expected: [("Pete", "pete@silly.test")]),
        Case(value: "jdoe@example.org (John Doe)", expected: [("John Doe", "jdoe@example.org")]),
        Case(value: "=?utf-8?q?Caf=C3=A9_Central?= <hello@cafe.example>", expected: [("Café Central", "hello@cafe.example")]),
        Case(value: "\"=?utf-8?B?w5xiZXI=?=\" <u@x.example>", expected: [("Über", "u@x.example")]),
        Case(value: "<@route.example,@two.example:user@Final.Example.>", expected: [(nil, "user@Final.Example.")]),
        Case(value: "Joe <joe@example.com>,, ,Ann <ann@example.com>", expected: [("Joe", "joe@example.com"), ("Ann", "ann@example.com")]),
        Case(value: "MAILER-DAEMON", expected: [(nil, "MAILER-DAEMON")]),
    ]

    @Test(arguments: cases)
    func parsesAddressList(_ testCase: Case) {
        let parsed = MailboxAddress.parseList(Array(testCase.value.utf8))
        #expect(parsed.map(\.displayName) == testCase.expected.map(\.0))
        #expect(parsed.map(\.address) == testCase.expected.map(\.1))
    }

    @Test func domainIsLowercasedWithoutTrailingDot() {
        #expect(MailboxAddress(displayName: nil, address: "User@Mail.Example.COM.").domain == "mail.example.com")
        #expect(MailboxAddress(displayName: nil, address: "nobody").domain == "")
    }

    @Test func fromCountsEveryField() {
        let message = Message(bytes: Fixture.lf("From: a@one.example\nFrom: B <b@Two.example>\n\nx"))
        #expect(message.fromFieldCount == 2)
        #expect(message.from.map(\.domain) == ["one.example", "two.example"])
    }
}
