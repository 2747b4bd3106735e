import Testing

@testable import JSON

/// Reads `text` and returns values and diagnostics.
private func read(_ text: String) -> JSONReading {
    TolerantJSONReader.read(Array(text.utf8))
}

private func repairs(_ reading: JSONReading) -> [String] {
    reading.diagnostics.filter { $0.code == .repaired }.map(\.message)
}

@Suite struct TolerantJSONReaderTests {
    // MARK: RFC 8259 basics

    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("0", .number(0)),
        ("-12.5e2", .number(-1250)),
        ("1E-2", .number(0.01)),
        (#""a\"b\\c\/d\b\f\n\r\t""#, .string("a\"b\\c/d\u{08}\u{0C}\n\r\t")),
        (#""\u00e9\u20AC""#, .string("é€")),
        (#""\ud83d\ude00""#, .string("😀")),
        (#""Zoë""#, .string("Zoë")),
        ("[]", .array([])),
        ("{}", .object(JSONObject())),
        (" [1, \"x\", [true]] ", .array([.number(1), .string("x"), .array([.bool(true)])])),
    ])
    func readsRFC8259Values(text: String, expected: JSONValue) {
        let reading = read(text)
        #expect(reading.values == [expected])
        #expect(reading.diagnostics.isEmpty)
        #expect(!reading.failed)
    }

    @Test func keepsMemberOrderAndLastValueOfRepeatedKeys() throws {
        let reading = read(#"{"b": 1, "a": {"c": null}, "b": 2}"#)
        let object = try #require(reading.values.first?.objectValue)
        #expect(object.keys == ["b", "a"])
        #expect(object["b"] == .number(2))
        #expect(object["a"] == .object(JSONObject(pairs: [("c", .null)])))
        #expect(reading.diagnostics.isEmpty)
    }

    @Test func serializationRoundTrips() throws {
        let text = #"{"@type":"Flight","n":[1,2.5,"x\ny"],"o":{"p":true,"q":null}}"#
        let value = try #require(read(text).values.first)
        #expect(value.serialized() == text)
    }

    // MARK: Repairs

    @Test(arguments: [
        (#"{"a": 1 "b": 2}"#, "missing comma between members", #"{"a":1,"b":2}"#),
        (#"[1 2 {"x":3} {"y":4}]"#, "missing comma between array elements", #"[1,2,{"x":3},{"y":4}]"#),
        (#"{"a": [1, 2,], }"#, "trailing comma removed", #"{"a":[1,2]}"#),
        ("{\"a\": \"line one\nline two\"}", "unescaped line break in a string kept", #"{"a":"line one\nline two"}"#),
        ("{\"a\": \"x\ty\"}", "unescaped tab in a string kept", #"{"a":"x\ty"}"#),
        ("{'a': 'it is'}", "single-quoted string read", #"{"a":"it is"}"#),
        ("{a: 1}", "unquoted member name quoted", #"{"a":1}"#),
        ("// note\n{\"a\": 1}", "comment removed", #"{"a":1}"#),
        ("{\"a\": /* inline */ 1}", "comment removed", #"{"a":1}"#),
        (#"{"a": 007}"#, "non-standard number '007' read", #"{"a":7}"#),
        (#"{"a": "\'"}"#, "unknown escape", #"{"a":"'"}"#),
        (#"{"name": "The "Best" Diner", "n": 1}"#, "unescaped quotation mark in a string kept", #"{"name":"The \"Best\" Diner","n":1}"#),
        ("{'a': 'it's'}", "unescaped quotation mark in a string kept", #"{"a":"it's"}"#),
    ])
    func repairsAndReports(text: String, repair: String, expected: String) throws {
        let reading = read(text)
        #expect(!reading.failed)
        #expect(try #require(reading.values.first).serialized() == expected)
        let messages = repairs(reading)
        #expect(messages.contains { $0.contains(repair) }, "\(messages)")
        #expect(messages.allSatisfy { $0.contains("at line ") })
    }

    @Test func readsValuesBackToBackAtTopLevel() {
        let reading = read(#"{"a":1}{"b":2} , {"c":3}"#)
        #expect(reading.values.map { $0.serialized() } == [#"{"a":1}"#, #"{"b":2}"#, #"{"c":3}"#])
        #expect(repairs(reading).contains { $0.contains("values back to back") })
        #expect(repairs(reading).contains { $0.contains("',' between top-level values removed") })
    }

    @Test func reportsTheLineOfARepair() {
        let reading = read("{\n  \"a\": 1\n  \"b\": 2\n}")
        #expect(repairs(reading) == ["missing comma between members inserted at line 3, column 3"])
    }

    /// Apple's WWDC 2020 "Add rich content to your email" sample misses two commas and puts
    /// startDate on the restaurant.
    @Test func readsAppleWWDC2020BrokenExample() throws {
        let text = """
            {
              "@context": "http://schema.org",
              "@type": "FoodEstablishmentReservation",
              "reservationNumber": "WWDC2020",
              "reservationStatus": "http://schema.org/Confirmed",
              "underName": {
                "@type": "Person",
                "name": "John Appleseed"
              }
              "reservationFor": {
                "@type": "FoodEstablishment",
                "name": "Caffè Macs",
                "startDate": "2020-06-26T19:30:00-07:00",
                "address": {
                  "@type": "PostalAddress",
                  "streetAddress": "1 Apple Park Way",
                  "addressLocality": "Cupertino",
                  "addressRegion": "CA",
                  "postalCode": "95014",
                  "addressCountry": "US"
                }
              }
              "partySize": "2"
            }
            """
        let reading = read(text)
        #expect(!reading.failed)
        let object = try #require(reading.values.first?.objectValue)
        #expect(object.keys == ["@context", "@type", "reservationNumber", "reservationStatus", "underName", "reservationFor", "partySize"])
        let restaurant = try #require(object["reservationFor"]?.objectValue)
        #expect(restaurant["startDate"] == .string("2020-06-26T19:30:00-07:00"))
        #expect(restaurant["name"] == .string("Caffè Macs"))
        #expect(
            repairs(reading) == [
                "missing comma between members inserted at line 10, column 3",
                "missing comma between members inserted at line 23, column 3",
            ])
    }

    @Test func capsTheNumberOfRepairDiagnostics() {
        let text = "[" + String(repeating: "1 ", count: 100) + "1]"
        let reading = read(text)
        #expect(reading.values.first?.listValue.count == 101)
        #expect(reading.diagnostics.count == JSONLimits.maximumRepairDiagnostics + 1)
        #expect(reading.diagnostics.last?.message == "\(100 - JSONLimits.maximumRepairDiagnostics) more repairs not listed")
    }

    // MARK: Failures and limits

    @Test(arguments: [
        (#"{"a": }"#, "unexpected '}' where a value belongs at line 1, column 7"),
        (#"{"a" 1}"#, "expected ':' after the member name at line 1, column 6"),
        (#"{"a": "open"#, "unterminated string at line 1, column 7"),
        (#"[1, 2"#, "unexpected end of input, ']' is missing at line 1, column 6"),
        (#"{"a": tru}"#, "unexpected 't' where a value belongs at line 1, column 7"),
        (#"{"a": 1]"#, "unexpected ']' in an object at line 1, column 8"),
        ("{\"a\":\n  -}", "malformed number '-' at line 2, column 3"),
    ])
    func reportsInvalidJSONWithItsPosition(text: String, message: String) {
        let reading = read(text)
        #expect(reading.failed)
        #expect(reading.values.isEmpty)
        #expect(reading.diagnostics.filter { $0.code == .unrecoverable }.map(\.message) == [message])
    }

    @Test func keepsValuesReadBeforeAFailure() {
        let reading = read(#"{"a": 1} {"b": "#)
        #expect(reading.values == [.object(JSONObject(pairs: [("a", .number(1))]))])
        #expect(reading.failed)
    }

    @Test func rejectsTrailingGarbage() {
        let reading = read(#"{"a": 1} garbage"#)
        #expect(reading.values.count == 1)
        #expect(reading.diagnostics.contains { $0.code == .unrecoverable && $0.message.contains("after the JSON value") })
    }

    @Test func dropsTooDeepValuesFastAndKeepsTheNext() throws {
        let depth = 100_000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + #" {"kept": true}"#
        let clock = ContinuousClock()
        var reading: JSONReading?
        let elapsed = clock.measure { reading = read(text) }
        let result = try #require(reading)
        #expect(elapsed < .seconds(5))
        #expect(result.diagnostics.first?.code == .tooDeep)
        #expect(result.values == [.object(JSONObject(pairs: [("kept", .bool(true))]))])
    }

    @Test func manyTooDeepValuesCostLinearTime() {
        let depth = JSONLimits.maximumDepth + 1
        let one = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let text = String(repeating: one + "\n", count: 10_000)
        let clock = ContinuousClock()
        var reading: JSONReading?
        let elapsed = clock.measure { reading = read(text) }
        #expect(elapsed < .seconds(8))
        #expect(reading?.values.isEmpty == true)
        let tooDeep = reading?.diagnostics.filter { $0.code == .tooDeep }.map(\.message) ?? []
        #expect(
            tooDeep == [
                "nesting deeper than \(JSONLimits.maximumDepth) levels at line 1, column \(depth); the value is dropped",
                "9999 more values nested too deep dropped",
            ])
    }

    @Test func readsInnerQuotesOnlyWhenTheTextFailsWithout() {
        let plain = read(#"["x"1, "y"2]"#)
        #expect(plain.values == [.array([.string("x"), .number(1), .string("y"), .number(2)])])
        #expect(!repairs(plain).contains { $0.contains("quotation mark") })

        let inner = read(#"{"name": "The "Best" Diner", "n": 1}"#)
        #expect(inner.values == [.object(JSONObject(pairs: [("name", .string(#"The "Best" Diner"#)), ("n", .number(1))]))])
        #expect(repairs(inner) == ["unescaped quotation mark in a string kept at line 1, column 15"])
    }

    @Test func hostileQuotingCostsLinearTime() {
        let text = "[" + String(repeating: #""x"a,"#, count: 50_000) + "1]"
        let clock = ContinuousClock()
        var reading: JSONReading?
        let elapsed = clock.measure { reading = read(text) }
        #expect(elapsed < .seconds(5))
        #expect(reading?.failed == true)
    }

    @Test func acceptsNestingUpToTheLimit() {
        let depth = JSONLimits.maximumDepth
        let reading = read(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        #expect(reading.values.count == 1)
        #expect(reading.diagnostics.isEmpty)
        let deeper = read(String(repeating: "{\"a\":", count: depth + 1) + "1" + String(repeating: "}", count: depth + 1))
        #expect(deeper.values.isEmpty)
        #expect(deeper.diagnostics.map(\.code.rawValue) == ["json-too-deep"])
    }

    @Test func skipsTextsOverTheSizeLimit() {
        let reading = TolerantJSONReader.read([UInt8](repeating: 0x20, count: JSONLimits.maximumBytes + 1))
        #expect(reading.values.isEmpty)
        #expect(reading.diagnostics.map(\.code.rawValue) == ["json-too-large"])
    }

    @Test func replacesInvalidUTF8InStrings() throws {
        let bytes: [UInt8] = Array(#"{"name": "Caf"#.utf8) + [0xE9, 0xFF] + Array(#"", "ok": 1}"#.utf8)
        let reading = TolerantJSONReader.read(bytes)
        let object = try #require(reading.values.first?.objectValue)
        #expect(object["name"] == .string("Caf\u{FFFD}\u{FFFD}"))
        #expect(object["ok"] == .number(1))
        #expect(repairs(reading).contains { $0.hasPrefix("invalid UTF-8 in a string replaced by U+FFFD") })
    }

    @Test func replacesLoneSurrogates() {
        let reading = read(#"["\ud800x"]"#)
        #expect(reading.values == [.array([.string("\u{FFFD}x")])])
        #expect(repairs(reading).contains { $0.hasPrefix("lone surrogate") })
    }

    @Test func neverTrapsOnAnyPrefix() {
        let text = Array(#"{"a": [1, {"b": 'c', d: "\u00e9\ud83d\ude00"}, /* x */ 2,], "e": -1.5e3}"#.utf8)
        for end in 0...text.count {
            _ = TolerantJSONReader.read(Array(text[0..<end]))
        }
    }
}
