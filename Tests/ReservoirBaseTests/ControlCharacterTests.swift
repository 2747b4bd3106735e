import Foundation
import ReservoirBase
import TestRequirements
import Testing

@Suite struct ControlCharacterTests {
    /// Every scalar up to U+FFFF that is neither a surrogate nor ASCII text.
    static let scalars = (0...0xFFFF).compactMap(Unicode.Scalar.init)

    static let python = "/usr/bin/python3"

    @Test(
        "line breaks are exactly where Python's str.splitlines() splits, controls the other C0, DEL and C1",
        .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: python)), "no /usr/bin/python3 (install python3)"))
    func kinds() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = ["-c", "print(' '.join(str(c) for c in range(0x110000) if len(('a' + chr(c) + 'b').splitlines()) > 1))"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let splits = Set(output.split(whereSeparator: \.isWhitespace).compactMap { UInt32($0) })
        #expect(splits.count >= 10, "\(output)")
        for value in splits { #expect(Unicode.Scalar(value).flatMap(ControlCharacter.init) == .lineBreak, "U+\(String(value, radix: 16))") }
        for scalar in Self.scalars where !splits.contains(scalar.value) {
            let control = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            #expect(ControlCharacter(scalar) == (control ? .control : nil), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test("isAbsent agrees with the scalars, whatever surrounds them")
    func absence() {
        for scalar in Self.scalars {
            let text = "ab" + String(Character(scalar)) + "é"
            #expect(ControlCharacter.isAbsent(in: text) == (ControlCharacter(scalar) == nil), "U+\(String(scalar.value, radix: 16))")
        }
        #expect(ControlCharacter.isAbsent(in: "") && ControlCharacter.isAbsent(in: "Zürich → Milano ✈︎ 日本"))
    }
}

@Suite struct ICalendarTextTests {
    @Test(
        "RFC 5545 TEXT: escapes, CR/LF/CRLF as \\n, TAB kept, every other line break and control a space",
        arguments: [
            ("a;b,c\\d", "a\\;b\\,c\\\\d"), ("a\nb", "a\\nb"), ("a\r\nb", "a\\nb"), ("a\rb", "a\\nb"), ("a\n\nb", "a\\n\\nb"),
            ("tab\there", "tab\there"), ("Gala\u{2028}END:VEVENT\u{2029}BEGIN:VEVENT\u{85}UID:evil", "Gala END:VEVENT BEGIN:VEVENT UID:evil"),
            ("v\u{0B}f\u{0C}s\u{1C}\u{1D}\u{1E}", "v f s   "), ("nul\u{0}esc\u{1B}del\u{7F}csi\u{9B}", "nul esc del csi "),
            ("Zürich ✈︎ 日本", "Zürich ✈︎ 日本"),
        ])
    func escape(input: String, expected: String) {
        #expect(ICalendarText.escape(input) == expected)
    }

    @Test("no escaped text holds a line break or control other than TAB")
    func nothingBreaks() {
        for value in 0...0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let escaped = ICalendarText.escape("a" + String(Character(scalar)) + "b")
            #expect(escaped.unicodeScalars.allSatisfy { $0 == "\t" || ControlCharacter($0) == nil }, "U+\(String(value, radix: 16))")
        }
    }
}
