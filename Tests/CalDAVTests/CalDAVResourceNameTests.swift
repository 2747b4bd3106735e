import Testing

@testable import CalDAV

@Suite("Resource names: the UID and .ics, every byte outside RFC 3986's unreserved set encoded")
struct CalDAVResourceNameTests {
    @Test(
        "UIDs as path segments",
        arguments: [
            ("IWDSCA-1@reservoir", "IWDSCA-1%40reservoir.ics"),
            ("a%b@c", "a%25b%40c.ics"),
            ("already%20escaped", "already%2520escaped.ics"),
            ("a/b", "a%2Fb.ics"),
            ("..", "...ics"),
            ("x?y#z", "x%3Fy%23z.ics"),
            ("tilde~under_score.dot-dash", "tilde~under_score.dot-dash.ics"),
            ("café", "caf%C3%A9.ics"),
            ("a+b c", "a%2Bb%20c.ics"),
        ])
    func uid(uid: String, segment: String) {
        let name = CalDAVResourceName(uid: uid)
        #expect(name.pathSegment == segment)
        #expect(name.name == uid + ".ics")
    }

    @Test("empty names and dot segments are refused", arguments: ["", ".", ".."])
    func dotSegments(name: String) {
        #expect(throws: CalDAVError(.invalidResourceName, "")) { try CalDAVResourceName(name) }
    }

    @Test("every byte: unreserved bytes stay, all others become %XX that decode back")
    func everyByte() {
        for byte in UInt8(1)...UInt8(127) {
            let text = String(decoding: [byte], as: UTF8.self)
            let encoded = CalDAVResourceName.percentEncoded(text)
            let unreserved = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
            if unreserved.contains(byte) {
                #expect(encoded == text)
            } else {
                #expect(encoded.count == 3 && encoded.hasPrefix("%") && UInt8(encoded.dropFirst(), radix: 16) == byte, "byte \(byte)")
            }
        }
    }
}
