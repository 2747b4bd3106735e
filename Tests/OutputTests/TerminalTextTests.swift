import EventStore
import Foundation
import MIME
import Mailbox
import Pipeline
import PipelineTestSupport
import Reservations
import Testing
import Trust

@testable import Output

@Suite("Text from a message is shown, never obeyed, by the terminal")
struct TerminalTextTests {
    @Test(
        "controls, C1 controls, bidi controls and separators are written out visibly",
        arguments: [
            ("a\u{1B}[2Kb", "a\\x1B[2Kb"),
            ("\r\n\t\u{0}\u{8}\u{7}", "\\x0D\\x0A\\x09\\x00\\x08\\x07"),
            ("del\u{7F}", "del\\x7F"),
            ("csi\u{9B}2K nel\u{85}", "csi\\x9B2K nel\\x85"),
            ("\u{202E}evil\u{202C}", "\\u{202E}evil\\u{202C}"),
            ("\u{202A}\u{202B}\u{202D}\u{2066}\u{2067}\u{2068}\u{2069}", "\\u{202A}\\u{202B}\\u{202D}\\u{2066}\\u{2067}\\u{2068}\\u{2069}"),
            ("\u{200E}\u{200F}\u{061C}", "\\u{200E}\\u{200F}\\u{061C}"),
            ("line\u{2028}para\u{2029}", "line\\u{2028}para\\u{2029}"),
        ])
    func escaped(text: String, shown: String) {
        #expect(TerminalText.escaped(text) == shown)
    }

    @Test(
        "ordinary text of every script is kept as it is",
        arguments: [
            "EPIC Steak", "Zürich HB → Milano Centrale", "e\u{301}te\u{301}", "公司", "مطعم", "מסעדה", "👩‍👩‍👧 party",
            "“Your table” — confirmed", "Ⅷ", "\u{200D}\u{200B}", "ǅ", "",
        ])
    func kept(text: String) {
        #expect(TerminalText.escaped(text) == text)
    }

    @Test("interpolated strings are escaped, literals and terminal text are not")
    func interpolation() {
        let name = "x\u{1B}[31my"
        let inner: TerminalText = "\u{1B}[1m"
        let text: TerminalText = "\(name) \(inner)\n"
        #expect(text.text == "x\\x1B[31my \u{1B}[1m\n")
        #expect(TerminalText(escaping: name).text == "x\\x1B[31my")
        #expect(BannerStyle(color: true, symbols: false).paint("\(name)", .bold).text == "\u{1B}[1mx\\x1B[31my\u{1B}[0m")
    }

    // MARK: Every renderer, on a hostile message

    /// Forged lines meant to paint "trusted" over the real verdict, in every field a renderer
    /// shows: display name and Subject (encoded words and raw bytes), markup title, place,
    /// booking number and details, and DKIM tags.
    static let hostileMessage = Array(
        """
        DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=epicsteak.example\u{1B}[2K; s=s\u{8}\u{8}2026;\r
        \th=from; bh=AAAA; b=AAAA\r
        From: =?UTF-8?Q?EPIC_Steak=1B[2K=0D=E2=80=AE?= <reservations@epicsteak.example>\r
        To: jane@example.org\r
        Subject: =?UTF-8?Q?Your_table=1B[1A=1B[2K=0D=C2=9B2K=E2=80=A8?= raw\u{1B}]0;title\u{7}\r
        Date: Sat, 21 Nov 2026 10:00:00 -0800\r
        Message-ID: <hostile\u{1B}[2K@epicsteak.example>\r
        MIME-Version: 1.0\r
        Content-Type: text/html; charset=utf-8\r
        \r
        <html><body><script type="application/ld+json">{"@context":"https://schema.org",
        "@type":"FoodEstablishmentReservation","reservationId":"IW\\u001b[2K1",
        "reservationStatus":"https://schema.org/ReservationConfirmed","partySize":"2\\u0000\\b\\u2066",
        "startTime":"2031-05-12T19:30:00-07:00",
        "reservationFor":{"@type":"Restaurant","name":"EPIC\\u001b[2K\\r  Trust      \\u2714 trusted\\u202e",
        "address":"Main St\\u2028  Trust      \\u2714 trusted\\u009b1A"}}</script></body></html>\r

        """.utf8)

    static func report(
        policy: TrustPolicy = TrustPolicy(allowedDomains: ["epicsteak.example"]),
        store: (any EventStore)? = nil
    ) throws -> MessageReport {
        let pipeline = try Samples.pipeline(store: store, policy: policy)
        var report = pipeline.analyze(RawMessage(bytes: hostileMessage, origin: MessageOrigin()))
        if let store { pipeline.record(&report, into: store) }
        return report
    }

    /// The text without the SGR colour codes.
    static func uncolored(_ text: String) -> String {
        var out = ""
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            if scalar == "\u{1B}", scalars.first == "[" {
                while let next = scalars.popFirst(), next != "m" {}
                continue
            }
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    /// Where a byte sequence a terminal obeys starts in `text`, other than line feeds and the
    /// SGR colour codes `BannerStyle` writes (`ESC [ digits;… m`); nil when there is none.
    static func firstRawControl(_ text: String, allowingColor: Bool = false) -> String? {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\u{1B}", allowingColor, index + 1 < scalars.count, scalars[index + 1] == "[" {
                var end = index + 2
                while end < scalars.count, ("0"..."9").contains(scalars[end]) || scalars[end] == ";" { end += 1 }
                if end < scalars.count, scalars[end] == "m" {
                    index = end + 1
                    continue
                }
            }
            if scalar != "\n", TerminalText.escape(for: scalar) != nil {
                return "U+\(String(scalar.value, radix: 16)) at \(index): …\(String(String.UnicodeScalarView(scalars[max(0, index - 20)..<index])))"
            }
            index += 1
        }
        return nil
    }

    @Test("the banner holds no raw control, plain or in colour, and its Trust line still reads NOT TRUSTED")
    func banner() throws {
        let report = try Self.report()
        #expect(report.hasReservations)
        #expect(!report.trust.trusted)
        for style in [BannerStyle.plain, BannerStyle(color: true, symbols: true)] {
            let text = BannerRenderer(style: style, explain: true).render(report)
            #expect(Self.firstRawControl(text, allowingColor: style.color) == nil, "\(text)")
            // Only the banner's own Trust line starts with its label; the forged ones stay
            // inside the lines that hold them.
            let trustLines = Self.uncolored(text).split(separator: "\n").filter { $0.hasPrefix("  Trust ") }
            #expect(trustLines.count == 1, "\(text)")
            #expect(trustLines.first?.contains("NOT TRUSTED") == true, "\(text)")
            // The hostile text is there, escaped: the test is not vacuous.
            #expect(text.contains("Your table\\x1B[1A\\x1B[2K\\x0D\\x9B2K\\u{2028} raw\\x1B]0;title\\x07"))
            #expect(text.contains("trusted\\u{202E}"))
            #expect(text.contains("d=epicsteak.example\\x1B[2"))
        }
        let plain = BannerRenderer(style: .plain).render(report)
        let bytes = Array(plain.utf8)
        #expect(!bytes.contains { $0 < 0x20 && $0 != 0x0A })
        #expect(!bytes.contains(0x7F))
    }

    @Test("verify, extract and parts text hold no raw control")
    func otherRenderers() throws {
        let report = try Self.report()
        let verification = VerificationRenderer.text(report)
        #expect(Self.firstRawControl(verification) == nil, "\(verification)")
        let extraction = ExtractionRenderer.text(
            try Samples.pipeline().extract(RawMessage(bytes: Self.hostileMessage, origin: MessageOrigin())),
            explain: true)
        #expect(Self.firstRawControl(extraction) == nil, "\(extraction)")
        #expect(extraction.contains("trusted\\u{202E}"))
        let parts = PartsRenderer.text(Message(bytes: Self.hostileMessage))
        #expect(Self.firstRawControl(parts) == nil, "\(parts)")
        #expect(parts.contains("Your table\\x1B[1A"))
    }

    @Test("the event list and its history hold no raw control")
    func events() throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let opened = try store.open()
        let policy = TrustPolicy(allowAnyDomain: true, allowUnverified: true)
        let report = try Self.report(policy: policy, store: opened)
        #expect(report.items.first?.change != nil)
        let stored = try opened.events()
        #expect(!stored.isEmpty)
        for style in [BannerStyle.plain, BannerStyle(color: true, symbols: true)] {
            let list = EventListRenderer(style: style).text(stored, now: Samples.now, all: true)
            #expect(Self.firstRawControl(list, allowingColor: style.color) == nil, "\(list)")
        }
        let id = try #require(report.items.first?.reservation.reservationID)
        let history = EventListRenderer.history(try opened.history(id), id: id)
        #expect(Self.firstRawControl(history) == nil, "\(history)")
        #expect(Self.firstRawControl(EventListRenderer.history([], id: "x\u{1B}[2K")) == nil)
    }

    @Test("the JSON writer escapes controls in a banner's JSON (RFC 8259 §7)")
    func json() throws {
        let json = BannerRenderer.json(try Self.report())
        #expect(!json.utf8.contains { $0 < 0x20 })
        #expect(json.contains("\\u001b[2K"))
    }
}
