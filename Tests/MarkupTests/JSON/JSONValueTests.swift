import JSON
import Testing

@testable import Markup

@Suite struct JSONValueTests {
    @Test(arguments: [
        (JSONValue.number(3), "3"),
        (.number(-0.5), "-0.5"),
        (.number(.infinity), "null"),
        (.string("a\"b\\\u{01}\u{2028}"), #""a\"b\\\u0001\u2028""#),
        (.string("plain"), #""plain""#),
        (.string("Café — 20 €"), #""Café — 20 €""#),
        (.string("line\nbreak"), #""line\nbreak""#),
        (.string("\u{2029}"), #""\u2029""#),
        (.string("\t\r\u{1F}é\u{2027}\u{7F}"), "\"\\t\\r\\u001fé\u{2027}\\u007f\""),
        (.string("\u{85}\u{9F}\u{80}\u{A0}£"), "\"\\u0085\\u009f\\u0080\u{A0}£\""),
        (.array([.null, .bool(false)]), "[null,false]"),
    ])
    func serializes(value: JSONValue, text: String) {
        #expect(value.serialized() == text)
    }

    /// Whether `text` holds a byte sequence a reader may take for a line end or a control: a C0
    /// control or DEL, a C1 control (C2 80–C2 9F, NEL included), U+2028 or U+2029.
    static func holdsControl(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        for (i, b) in bytes.enumerated() {
            if b < 0x20 || b == 0x7F { return true }
            if b == 0xC2, i + 1 < bytes.count, bytes[i + 1] <= 0x9F { return true }
            if b == 0xE2, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 { return true }
        }
        return false
    }

    @Test("every code point up to U+3000 is written without a raw control or line separator, and reads back")
    func everyScalar() throws {
        for value in 0...0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(Character(scalar)) + "\u{A0}b"
            let written = JSONValue.object(JSONObject(pairs: [(text, .string(text))])).serialized()
            #expect(!Self.holdsControl(written), "U+\(String(value, radix: 16)): \(written.debugDescription)")
            let read = try #require(TolerantJSONReader.read(Array(written.utf8)).values.first)
            #expect(read == .object(JSONObject(pairs: [(text, .string(text))])), "U+\(String(value, radix: 16))")
        }
    }

    @Test func uniquingLargeObjects() {
        // Past the size where keys are compared one by one, a dictionary finds repeats.
        let members = (0..<40).map { JSONObject.Member(key: "k\($0 % 25)", value: .number(Double($0))) }
        let object = JSONObject(uniquing: members)
        #expect(object.keys == (0..<25).map { "k\($0)" })
        #expect(object["k3"] == .number(28))
        #expect(object["k24"] == .number(24))
        #expect(object == JSONObject(members))
    }

    @Test func uniquingKeepsFirstPositionAndLastValue() {
        let object = JSONObject(uniquing: [
            JSONObject.Member(key: "a", value: .number(1)),
            JSONObject.Member(key: "b", value: .number(2)),
            JSONObject.Member(key: "a", value: .number(3)),
        ])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == .number(3))
        #expect(object == JSONObject(pairs: [("a", .number(1)), ("b", .number(2)), ("a", .number(3))]))
    }

    @Test func prettyPrintsWithTwoSpaces() {
        let value = JSONValue.object(JSONObject(pairs: [("a", .array([.number(1)])), ("b", .object(JSONObject()))]))
        #expect(value.prettyPrinted() == "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}")
    }
}
