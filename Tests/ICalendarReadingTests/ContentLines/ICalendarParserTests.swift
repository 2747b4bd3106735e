import Testing

@testable import ICalendarReading

@Suite("The RFC 5545 grammar")
struct ICalendarParserTests {
    static let line = "DESCRIPTION;LANGUAGE=de-DE;X-NOTE=\"a;b:c\":Großer Saal\\, Reihe 7\\nEinlass 19:00 ☕"

    /// The one property of a VEVENT holding `text` as a content line.
    static func property(_ bytes: [UInt8]) -> ICalendarProperty? {
        let document = ICalendarParser.parse(Array("BEGIN:VEVENT\r\n".utf8) + bytes + Array("\r\nEND:VEVENT\r\n".utf8))
        return document.calendars.first?.components.first?.properties.first
    }

    @Test("a line folded at every byte reads as the line itself (RFC 5545 §3.1), with CRLF, LF, space or tab")
    func foldingAtEveryByte() throws {
        let bytes = Array(Self.line.utf8)
        let whole = try #require(Self.property(bytes))
        #expect(whole.text == "Großer Saal, Reihe 7\nEinlass 19:00 ☕")
        #expect(whole.parameter("X-NOTE") == "a;b:c")
        for split in 1..<bytes.count {
            for fold in [[0x0D, 0x0A, 0x20], [0x0A, 0x09]] as [[UInt8]] {
                let folded = Array(bytes[..<split]) + fold + Array(bytes[split...])
                let read = Self.property(folded)
                #expect(read?.value == whole.value && read?.parameters == whole.parameters, "folded at \(split)")
            }
        }
    }

    @Test(
        "TEXT escapes (RFC 5545 §3.3.11)",
        arguments: [
            ("a\\,b", "a,b"), ("a\\;b", "a;b"), ("a\\\\b", "a\\b"), ("a\\nb", "a\nb"), ("a\\Nb", "a\nb"),
            ("a\\:b", "a\\:b"), ("end\\", "end\\"), ("\\\\n", "\\n"),
        ])
    func escapes(written: String, read: String) {
        #expect(TextValue.unescape(written) == read)
    }

    @Test("parameters: quoted values, several values, RFC 6868 carets, names in any case")
    func parameters() throws {
        let property = try #require(
            Self.property(Array("attendee;member=\"mailto:a@x.example\",\"mailto:b@x.example\";Cn=\"Ann ^'A^' ^^ B\";x-y=z:mailto:c@x.example".utf8)))
        #expect(property.name == "ATTENDEE")
        #expect(property.parameters.map(\.name) == ["MEMBER", "CN", "X-Y"])
        #expect(property.parameters[0].values == ["mailto:a@x.example", "mailto:b@x.example"])
        #expect(property.parameter("CN") == "Ann \"A\" ^ B")
        #expect(property.value == "mailto:c@x.example")
    }

    @Test("lines that do not parse are skipped with their line number", arguments: ["no colon here", ":value", "X;=1:v", "X;A=\"open:v"])
    func malformed(line: String) {
        let document = ICalendarParser.parse(Array("BEGIN:VCALENDAR\n\(line)\nEND:VCALENDAR\n".utf8))
        #expect(document.diagnostics == [ICalendarDiagnostic(.malformedLine, document.diagnostics.first?.message ?? "", line: 2)])
    }

    @Test("an END that closes nothing is noted; an END naming an outer component closes the inner ones")
    func balance() {
        let document = ICalendarParser.parse(Array("END:VEVENT\nBEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nEND:VCALENDAR\n".utf8))
        #expect(document.diagnostics.map(\.code) == [.unbalancedComponent, .unbalancedComponent])
        #expect(document.calendars.first?.components.first?.property("UID")?.value == "a")
    }
}

@Suite("The reader's limits")
struct ICalendarLimitsTests {
    @Test("nesting deeper than maximumDepth is skipped with everything inside")
    func depth() {
        let depth = ICalendarLimits.maximumDepth + 2
        let text = (0..<depth).map { "BEGIN:X\($0)\nP:\($0)\n" }.joined() + (0..<depth).reversed().map { "END:X\($0)\n" }.joined()
        let document = ICalendarParser.parse(Array(text.utf8))
        #expect(document.diagnostics.map(\.code) == [.limitExceeded])
        var component = document.components.first?.components.first
        var levels = 1
        while let inner = component?.components.first {
            component = inner
            levels += 1
        }
        #expect(levels == ICalendarLimits.maximumDepth)
    }

    @Test("more components, properties, lines or bytes than the limits: a note, and what came before is kept")
    func counts() {
        let components = String(repeating: "BEGIN:VEVENT\nEND:VEVENT\n", count: ICalendarLimits.maximumComponents + 5)
        let many = ICalendarParser.parse(Array(("BEGIN:VCALENDAR\n" + components + "END:VCALENDAR\n").utf8))
        #expect(many.diagnostics.map(\.code) == [.limitExceeded])
        #expect(many.calendars.first?.components.count == ICalendarLimits.maximumComponents - 1)

        let properties = String(repeating: "X-A:1\n", count: ICalendarLimits.maximumProperties + 1)
        let wide = ICalendarParser.parse(Array(("BEGIN:VCALENDAR\n" + properties + "END:VCALENDAR\n").utf8))
        #expect(wide.diagnostics.map(\.code) == [.limitExceeded])
        #expect(wide.calendars.first?.properties.count == ICalendarLimits.maximumProperties)

        let lines = ICalendarParser.parse(Array(String(repeating: "X:1\n", count: ICalendarLimits.maximumLines + 1).utf8))
        #expect(lines.diagnostics.map(\.code) == [.limitExceeded])

        let long = ICalendarParser.parse(Array(("X:" + String(repeating: "a", count: ICalendarLimits.maximumLineBytes) + "\n").utf8))
        #expect(long.diagnostics.map(\.code) == [.limitExceeded])

        let big = ICalendarParser.parse([UInt8](repeating: 0x0A, count: ICalendarLimits.maximumBytes + 1))
        #expect(big.diagnostics.map(\.code) == [.limitExceeded])
    }

    @Test("more events than maximumEvents: the first are read")
    func events() {
        let events = (0...ICalendarLimits.maximumEvents).map { "BEGIN:VEVENT\nUID:\($0)\nDTSTART:20310101T100000Z\nEND:VEVENT\n" }.joined()
        let object = ICalendarReader.read(Array(("BEGIN:VCALENDAR\n" + events + "END:VCALENDAR\n").utf8))
        #expect(object.events.count == ICalendarLimits.maximumEvents)
        #expect(object.diagnostics.map(\.code) == [.limitExceeded])
    }
}
