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
        (.string("\t\r\u{1F}é\u{2027}\u{7F}"), "\"\\t\\r\\u001fé\u{2027}\u{7F}\""),
        (.array([.null, .bool(false)]), "[null,false]"),
    ])
    func serializes(value: JSONValue, text: String) {
        #expect(value.serialized() == text)
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
