import Testing

@testable import ICalendarReading

@Suite("mailto: URIs (RFC 6068) as ORGANIZER addresses")
struct MailtoURITests {
    static func addresses(_ text: String) -> [String]? {
        guard case .uri(let uri) = MailtoURI.read(text) else { return nil }
        return uri.addresses
    }

    @Test(
        "RFC 6068 §6's examples: the addresses of the path and of `to`, percent-decoded",
        arguments: [
            ("mailto:chris@example.com", ["chris@example.com"]),
            ("mailto:infobot@example.com?subject=current-issue", ["infobot@example.com"]),
            ("mailto:infobot@example.com?body=send%20current-issue", ["infobot@example.com"]),
            ("mailto:list@example.org?In-Reply-To=%3C3469A91.D10AF4C@example.com%3E", ["list@example.org"]),
            ("mailto:joe@example.com?cc=bob@example.com&body=hello", ["joe@example.com"]),
            ("mailto:gorby%25kremvax@example.com", ["gorby%kremvax@example.com"]),
            ("mailto:unlikely%3Faddress@example.com?blat=foop", ["unlikely?address@example.com"]),
            ("mailto:Mike%26family@example.org", ["Mike&family@example.org"]),
            ("mailto:user@example.org?subject=caf%C3%A9", ["user@example.org"]),
            ("mailto:user@%E7%B4%8D%E8%B1%86.example.org?subject=Test", ["user@納豆.example.org"]),
            ("mailto:addr1@an.example,addr2@an.example", ["addr1@an.example", "addr2@an.example"]),
            ("mailto:?to=addr1@an.example,addr2@an.example", ["addr1@an.example", "addr2@an.example"]),
            ("mailto:addr1@an.example?to=addr2@an.example", ["addr1@an.example", "addr2@an.example"]),
            ("MAILTO:Events@EpicSteak.example", ["Events@EpicSteak.example"]),
            ("  mailto:events%40epicsteak.example\t", ["events@epicsteak.example"]),
            ("mailto:events@epicsteak.example?%54o=x@attacker.example", ["events@epicsteak.example", "x@attacker.example"]),
            (
                "mailto:events@epicsteak.example?to=%20x@attacker.example%2C%20y@attacker.example",
                ["events@epicsteak.example", "x@attacker.example", "y@attacker.example"]
            ),
            ("mailto:", []),
        ])
    func examples(text: String, expected: [String]) {
        #expect(Self.addresses(text) == expected)
    }

    @Test("header fields are decoded, their names lowercased; the fragment is kept as written")
    func fieldsAndFragment() {
        guard case .uri(let uri) = MailtoURI.read("mailto:a@x.example?Subject=caf%C3%A9&CC=b@y.example#p%41rt") else {
            Issue.record("not read")
            return
        }
        #expect(uri.headerFields == [.init(name: "subject", value: "café"), .init(name: "cc", value: "b@y.example")])
        #expect(uri.fragment == "p%41rt")
    }

    @Test(
        "what is refused rather than guessed",
        arguments: [
            ("https://epicsteak.example/", MailtoURI.Problem.notMailto),
            ("urn:uuid:2bd0c5c5-4c2a-4bd2-8c1e-7b1e3fbd7b35", .notMailto),
            ("mailt:a@x.example", .notMailto),
            ("mailto:a b@x.example", .invalidCharacter),
            ("mailto:<a@x.example>", .invalidCharacter),
            ("mailto:a@x.example\u{2028}", .invalidCharacter),
            ("mailto:a@x.example\u{202E}", .invalidCharacter),
            ("mailto:a@x.exa%4", .invalidPercentEncoding),
            ("mailto:a@x.exa%zz", .invalidPercentEncoding),
            ("mailto:%FF@x.example", .invalidPercentEncoding),
            ("mailto:a@x.example?to=%E2%82", .invalidPercentEncoding),
            ("mailto:%22not%40me%22@example.org", .invalidAddress),
            ("mailto:a@[192.0.2.1]", .invalidAddress),
            ("mailto:a@x.example,", .invalidAddress),
            ("mailto:,a@x.example", .invalidAddress),
            ("mailto:a@@x.example", .invalidAddress),
            ("mailto:x%40attacker.example@epicsteak.example", .invalidAddress),
            ("mailto:a@x..example", .invalidAddress),
            ("mailto:a.@x.example", .invalidAddress),
            ("mailto:a@x.example.", .invalidAddress),
            ("mailto:a@x_y.example", .invalidAddress),
            ("mailto:events", .invalidAddress),
            ("mailto:a@x.example?to=b@y.example,", .invalidAddress),
            ("mailto:a@x.example?to=Bob%20%3Cb@y.example%3E", .invalidAddress),
        ])
    func refusals(text: String, problem: MailtoURI.Problem) {
        #expect(MailtoURI.read(text) == .refused(problem))
    }

    @Test(
        "exactly one recipient and no fragment, or why not",
        arguments: [
            ("mailto:events@epicsteak.example", MailtoURI.SingleAddress.one("events@epicsteak.example")),
            ("mailto:events@epicsteak.example?subject=Tasting", .one("events@epicsteak.example")),
            ("mailto:events@epicsteak.example?cc=", .one("events@epicsteak.example")),
            ("mailto:events@attacker.example,events@epicsteak.example", .notOne(.severalAddresses(2))),
            ("mailto:events@attacker.example?to=events@epicsteak.example", .notOne(.severalAddresses(2))),
            ("mailto:events@epicsteak.example?bcc=x@attacker.example", .notOne(.severalAddresses(2))),
            ("mailto:events@attacker.example#@epicsteak.example", .notOne(.fragment)),
            ("mailto:events@epicsteak.example#", .notOne(.fragment)),
            ("mailto:?subject=x", .notOne(.noAddress)),
        ])
    func singleAddress(text: String, expected: MailtoURI.SingleAddress) throws {
        guard case .uri(let uri) = MailtoURI.read(text) else {
            Issue.record("\(text) not read")
            return
        }
        #expect(uri.singleAddress == expected)
    }

    static let address = "ev.ents+tasting@mail.epicsteak.example"

    @Test("every byte of the address percent-encoded in turn reads as the same address")
    func encodedAtEveryByte() {
        let bytes = Array(Self.address.utf8)
        for index in bytes.indices {
            let hex = String(bytes[index], radix: 16, uppercase: index % 2 == 0)
            let encoded =
                String(decoding: bytes[..<index], as: UTF8.self) + "%" + (hex.count == 1 ? "0" : "") + hex
                + String(decoding: bytes[(index + 1)...], as: UTF8.self)
            #expect(Self.addresses("mailto:" + encoded) == [Self.address], "byte \(index)")
        }
    }

    @Test("`?` or `#` at every byte ends the address there; `,` at every byte never leaves one address")
    func separatorAtEveryByte() {
        let bytes = Array(Self.address.utf8)
        for split in 0...bytes.count {
            let before = String(decoding: bytes[..<split], as: UTF8.self)
            let after = String(decoding: bytes[split...], as: UTF8.self)
            for separator in ["?", "#"] {
                let read = MailtoURI.read("mailto:" + before + separator + after)
                switch read {
                case .uri(let uri): #expect(uri.addresses == (before.isEmpty ? [] : [before]), "\(separator) at \(split)")
                case .refused(let problem): #expect(problem == .invalidAddress && !MailtoURI.isAddress(before), "\(separator) at \(split)")
                }
            }
            let comma = MailtoURI.read("mailto:" + before + "," + after)
            if case .uri(let uri) = comma { #expect(uri.addresses.count == 2, ", at \(split)") }
        }
    }

    @Test("every truncation of a URI with escapes, fields and a fragment reads as plain addresses or is refused for an escape or an address")
    func truncations() {
        let text = "mailto:ev%2Bents@epicsteak.example?to=b%40y.example&subject=caf%C3%A9#top"
        let bytes = Array(text.utf8)
        for end in 0...bytes.count {
            let prefix = String(decoding: bytes[..<end], as: UTF8.self)
            switch MailtoURI.read(prefix) {
            case .uri(let uri):
                for address in uri.addresses { #expect(MailtoURI.isAddress(address), "\(end)") }
                #expect(uri.addresses.count <= 2, "\(end)")
            case .refused(let problem):
                #expect(problem != .invalidCharacter, "\(end): \(problem)")
            }
        }
    }
}
