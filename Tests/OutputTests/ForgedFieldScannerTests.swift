import Foundation
import Pipeline
import Testing

@testable import Output

@Suite("the forged-field scanner: what the filter removes from the header")
struct ForgedFieldScannerTests {
    static let id = "mx.test"

    /// The input less the removals.
    static func stripped(_ bytes: [UInt8], _ forged: ForgedFields) -> [UInt8] {
        var out: [UInt8] = []
        var cursor = 0
        for removal in forged.removals {
            out += bytes[cursor..<removal.lowerBound]
            cursor = removal.upperBound
        }
        return out + bytes[cursor...]
    }

    static func strip(_ text: String) -> String {
        let bytes = Array(text.utf8)
        return String(decoding: stripped(bytes, ForgedFieldScanner.find(in: bytes, authservID: id)), as: UTF8.self)
    }

    /// The stream's output for `bytes` fed in pieces of the given sizes (cycled).
    static func streamed(_ bytes: [UInt8], pieces: [Int]) -> [UInt8] {
        var stream = ForgedFieldStream(authservID: id)
        var out: [UInt8] = []
        let emit: (UnsafeBufferPointer<UInt8>) -> Bool = {
            out += $0
            return true
        }
        var start = 0
        var index = 0
        while start < bytes.count {
            let end = min(bytes.count, start + max(1, pieces[index % pieces.count]))
            _ = bytes[start..<end].withUnsafeBufferPointer { stream.push($0, emit: emit) }
            start = end
            index += 1
        }
        _ = stream.finish(emit: emit)
        return out
    }

    /// A header with every kind of forged field and the controls that must survive.
    static let attack = """
        From x@y.example Tue Nov 17 07:21:50 2026
        Received: from a by b; Tue, 17 Nov 2026 07:21:50 +0000
        Authentication-Results: mx.test; dkim=pass header.d=bank.example
        Authentication-Results: other.example; dkim=fail (CONTROL)
        X-Reservation: Flight forged
        x-reservation : folded
         continuation of forged
        A line without a colon
        authentication-results:
        \t(comment) "MX.TEST" 1;
        \tdkim=pass
        Authentication-Results: mx.test.other.example; dkim=pass (CONTROL)
        Authentication-Results mx.test; dkim=pass
        From: a@b.example
        X-Reservation
        Authentication-Results\t: mx.test dkim=pass
        Subject: control; mentions X-Reservation: and Authentication-Results: mx.test;
        X-Reservations: CONTROL
        Authentication-Results-Original: mx.test; dkim=pass (CONTROL)

        X-Reservation: in the body, kept
        Authentication-Results: mx.test; body, kept

        """

    static let attackStripped = """
        From x@y.example Tue Nov 17 07:21:50 2026
        Received: from a by b; Tue, 17 Nov 2026 07:21:50 +0000
        Authentication-Results: other.example; dkim=fail (CONTROL)
        A line without a colon
        Authentication-Results: mx.test.other.example; dkim=pass (CONTROL)
        From: a@b.example
        Subject: control; mentions X-Reservation: and Authentication-Results: mx.test;
        X-Reservations: CONTROL
        Authentication-Results-Original: mx.test; dkim=pass (CONTROL)

        X-Reservation: in the body, kept
        Authentication-Results: mx.test; body, kept

        """

    @Test("forged fields of every shape go, controls stay byte for byte, the envelope line stays first", arguments: ["\n", "\r\n"])
    func attack(lineEnding: String) {
        let input = Self.attack.replacingOccurrences(of: "\n", with: lineEnding)
        let bytes = Array(input.utf8)
        let forged = ForgedFieldScanner.find(in: bytes, authservID: Self.id)
        #expect(String(decoding: Self.stripped(bytes, forged), as: UTF8.self) == Self.attackStripped.replacingOccurrences(of: "\n", with: lineEnding))
        #expect(forged.insertionPoint == "From x@y.example Tue Nov 17 07:21:50 2026".utf8.count + lineEnding.utf8.count)
        #expect(forged.hasHeaderField)
        #expect(forged.removals.count == 7)
    }

    @Test("the input split at every byte gives the same removals and the same output")
    func everySplit() {
        let bytes = Array(Self.attack.utf8)
        let whole = ForgedFieldScanner.find(in: bytes, authservID: Self.id)
        let expected = Self.stripped(bytes, whole)
        for split in 0...bytes.count {
            var scanner = ForgedFieldScanner(authservID: Self.id)
            bytes[..<split].withUnsafeBufferPointer { scanner.scan($0) }
            bytes[split...].withUnsafeBufferPointer { scanner.scan($0) }
            scanner.finish()
            #expect(scanner.result == whole, "split at \(split)")
            #expect(Self.streamed(bytes, pieces: [split, bytes.count]) == expected, "split at \(split)")
        }
        for pieces in [[1], [2], [3, 1], [7], [64, 1, 5]] {
            #expect(Self.streamed(bytes, pieces: pieces) == expected, "pieces \(pieces)")
        }
    }

    @Test("a line without a colon does not hide the fields after it")
    func lineWithoutColon() {
        #expect(Self.strip("From: a@b\ngarbage\nAuthentication-Results: mx.test; dkim=pass\n\nbody\n") == "From: a@b\ngarbage\n\nbody\n")
        #expect(Self.strip("garbage first\nX-Reservation: x\n\nbody\n") == "garbage first\n\nbody\n")
        // Lines of white space, a bare CR at the start of a line or CR CR LF do not end the header (Dovecot reads on).
        #expect(
            Self.strip("A: 1\n   \nX-Reservation: x\n\r\r\nX-Reservation: y\n\rX\nX-Reservation: z\n\nbody\n")
                == "A: 1\n   \n\r\r\n\rX\n\nbody\n")
    }

    @Test("more than 10,000 fields: every forged one goes, however far down")
    func manyFields() {
        var text = "From: a@b.example\n"
        for i in 0..<25_000 {
            text += i % 5_000 == 4_999 ? "X-Reservation: forged \(i)\nAuthentication-Results: mx.test; dkim=pass\n" : "X-Field-\(i): \(i)\n"
        }
        let input = text + "Authentication-Results: mx.test; dkim=pass\n\nbody\n"
        let output = Self.strip(input)
        #expect(!output.contains("X-Reservation") && !output.contains("mx.test"))
        #expect(output.contains("X-Field-24998: 24998\n\nbody\n"))
        #expect(ForgedFieldScanner.find(in: Array(input.utf8), authservID: Self.id).removals.count == 11)
    }

    @Test("a header over 2 MB: forged fields after a 3 MB line go, in pieces too")
    func largeHeader() {
        let long = "X-Long: " + String(repeating: "a", count: 3 << 20) + "\n"
        let input = Array(
            ("From: a@b.example\n" + long + "X-Reservation: forged\n folded\nAuthentication-Results: MX.TEST; dkim=pass\nSubject: s\n\nbody\n").utf8)
        let expected = Array(("From: a@b.example\n" + long + "Subject: s\n\nbody\n").utf8)
        #expect(Self.stripped(input, ForgedFieldScanner.find(in: input, authservID: Self.id)) == expected)
        #expect(Self.streamed(input, pieces: [1 << 16]) == expected)
        #expect(Self.streamed(input, pieces: [(2 << 20) + 1, 1 << 20]) == expected)
    }

    @Test("an Authentication-Results value too long to decide is removed; one within the bound is decided")
    func heldFieldBound() {
        let fold = String(repeating: "\t(" + String(repeating: "c", count: 70) + ")\n", count: ForgedFieldScanner.maxHeldFieldBytes / 70)
        #expect(Self.strip("A: 1\nAuthentication-Results: other.example;\n" + fold + "\tdkim=pass\nB: 2\n\n") == "A: 1\nB: 2\n\n")
        let short = "A: 1\nAuthentication-Results: other.example;\n\t(c)\n\tdkim=pass\nB: 2\n\n"
        #expect(Self.strip(short) == short)
    }

    @Test("white space without end after one of our names is decided without holding it back")
    func endlessSpaceBeforeColon() {
        let spaces = String(repeating: " ", count: ForgedFieldScanner.maxHeldFieldBytes * 2)
        let input = Array(("A: 1\nX-Reservation" + spaces + ": x\nAuth" + spaces + ": kept\nB: 2\n\n").utf8)
        var stream = ForgedFieldStream(authservID: Self.id)
        var out: [UInt8] = []
        var mostHeld = 0
        for byte in input {
            _ = [byte].withUnsafeBufferPointer {
                stream.push($0) {
                    out += $0
                    return true
                }
            }
            mostHeld = max(mostHeld, stream.scanner.consumed - stream.scanner.settled)
        }
        _ = stream.finish {
            out += $0
            return true
        }
        #expect(String(decoding: out, as: UTF8.self) == "A: 1\nAuth" + spaces + ": kept\nB: 2\n\n")
        #expect(mostHeld <= ForgedFieldScanner.maxHeldFieldBytes + 64)
    }

    @Test(
        "an envelope line is recognised by its RFC 4155 form, not by its first five bytes",
        arguments: [
            ("From x@y.example Tue Nov 17 07:21:50 2026\n", true), ("From MAILER-DAEMON Fri Jul  8 12:08:34 2011\n", true),
            ("From x@y Tue Nov 17 07:21 PST 2026\r\n", true), ("From : a@b.example\n", false),
            ("From :\n a@b.example Tue Nov 17 07:21:50 2026\n", false), ("From a@b.example\n", false),
            ("From : Tue Nov 17 07:21:50 2026\n", false), ("From x@y Tue Nov 17 07:21:50\n", false), ("Subject: x\n", false),
        ])
    func envelope(line: String, isEnvelope: Bool) {
        let bytes = Array((line + "To: b@c.example\n\nbody\n").utf8)
        let forged = ForgedFieldScanner.find(in: bytes, authservID: Self.id)
        #expect(forged.insertionPoint == (isEnvelope ? line.utf8.count : 0))
    }

    @Test(
        "input without a header field has none; garbage never traps",
        arguments: [
            "", "no header at all", "\n\nbody", ":\n: \n\n", "\u{0}\u{FF}binary\n\u{1B}\n", "From x@y.example Tue Nov 17 07:21:50 2026\n\nbody",
        ])
    func notAMessage(text: String) {
        let bytes = Array(text.utf8)
        let forged = ForgedFieldScanner.find(in: bytes, authservID: Self.id)
        #expect(!forged.hasHeaderField)
        #expect(Self.stripped(bytes, forged) == bytes)
    }

    @Test(
        "the end of the input ends an open field",
        arguments: [
            ("X-Reservation", ""), ("A: 1\nX-Reservation: x", "A: 1\n"),
            ("A: 1\nAuthentication-Results: mx.test; none\r", "A: 1\n"),
            ("A: 1\nX-Reservation: x\n\r", "A: 1\n\r"),
        ])
    func endOfInput(input: String, output: String) {
        #expect(Self.strip(input) == output)
        #expect(String(decoding: Self.streamed(Array(input.utf8), pieces: [1]), as: UTF8.self) == output)
    }

    @Test(
        "a bare CR ends a line as readers that end lines at CR read it: the field after it goes, the LF of its line stays",
        arguments: [
            // Behind a bare CR inside a field, with LF and with CRLF line ends; the LF stays so B stays a line of its own.
            ("A: 1\rX-Reservation: f\nB: 2\n\nbody\n", "A: 1\r\nB: 2\n\nbody\n"),
            ("A: 1\rX-Reservation: f\r\nB: 2\r\n\r\nbody\r\n", "A: 1\r\nB: 2\r\n\r\nbody\r\n"),
            ("A: 1\rX-Reservoir-Error: f\rB: 2\n\n", "A: 1\rB: 2\n\n"),
            ("A: 1\rAuthentication-Results: MX.TEST; dkim=pass\nB: 2\n\n", "A: 1\r\nB: 2\n\n"),
            ("A: 1\rAuthentication-Results: other.example; dkim=pass\nB: 2\n\n", "A: 1\rAuthentication-Results: other.example; dkim=pass\nB: 2\n\n"),
            // Two in a row: the first takes the bare CR, so the second takes its LF.
            ("A: 1\rX-Reservation: f\rX-Reservation: g\nB: 2\n\n", "A: 1\r\nB: 2\n\n"),
            ("X-Reservation: f\rX-Reservation: g\nB: 2\n\n", "B: 2\n\n"),
            // A field of ours before a bare CR goes up to it; what follows is a line of its own.
            ("X-Reservation: f\rB: 2\n\n", "B: 2\n\n"),
            // A bare CR opening a line goes with the field after it: no CR LF is left to read as the empty line.
            ("A: 1\n\rX-Reservation: f\nB: 2\n\n", "A: 1\nB: 2\n\n"),
            ("A: 1\n\r\rX-Reservation: f\nB: 2\n\n", "A: 1\n\r\r\nB: 2\n\n"),
            // Inside a continuation line, and as the fold of our own field's continuation.
            ("A: 1\n\tcont\rX-Reservation: f\nB: 2\n\n", "A: 1\n\tcont\r\nB: 2\n\n"),
            ("A: 1\rX-Reservation: f\r more\nB: 2\n\n", "A: 1\r\nB: 2\n\n"),
            // Our names without a colon, or with a bare CR before it, end at the CR.
            ("A: 1\rX-Reservation\r: f\nB: 2\n\n", "A: 1\r: f\nB: 2\n\n"),
            ("Authentication-Results\r: mx.test; dkim=pass\nB: 2\n\n", ": mx.test; dkim=pass\nB: 2\n\n"),
            // An Authentication-Results field holding a bare CR goes to the end of its LF line,
            // whatever its id: an LF reader reads `mx.test` in it, a CR reader does not.
            ("A: 1\nAuthentication-Results: \rmx.test; dkim=pass\nB: 2\n\n", "A: 1\nB: 2\n\n"),
            ("Authentication-Results: other.example; dkim=pass\rX: (note)\n continued\nB: 2\n\n", "B: 2\n\n"),
            // The header ends where an LF reader's does: not at CR CR LF, nor at a bare CR line.
            ("A: 1\r\r\nX-Reservation: f\nB: 2\n\n", "A: 1\r\r\nB: 2\n\n"),
            ("A: 1\r\n\r\r\nX-Reservation: f\r\n\r\nbody", "A: 1\r\n\r\r\n\r\nbody"),
            // Control: a bare CR with nothing of ours behind it changes nothing, nor does one in the body.
            (
                "X-Mailer: Mail\rer 1.0\nSubject: a\rb\n\nX-Reservation: body\rX-Reservation: kept\n",
                "X-Mailer: Mail\rer 1.0\nSubject: a\rb\n\nX-Reservation: body\rX-Reservation: kept\n"
            ),
            // The end of the input.
            ("A: 1\rX-Reservation: f\r", "A: 1\r"), ("A: 1\rX-Reservation: f\n", "A: 1\r\n"),
        ])
    func bareCR(input: String, output: String) {
        let bytes = Array(input.utf8)
        let whole = ForgedFieldScanner.find(in: bytes, authservID: Self.id)
        #expect(String(decoding: Self.stripped(bytes, whole), as: UTF8.self) == output)
        for split in 0...bytes.count {
            var scanner = ForgedFieldScanner(authservID: Self.id)
            bytes[..<split].withUnsafeBufferPointer { scanner.scan($0) }
            bytes[split...].withUnsafeBufferPointer { scanner.scan($0) }
            scanner.finish()
            #expect(scanner.result == whole, "split at \(split)")
        }
        for pieces in [[1], [2], [3, 1], [bytes.count]] {
            #expect(String(decoding: Self.streamed(bytes, pieces: pieces), as: UTF8.self) == output, "pieces \(pieces)")
        }
    }

    @Test(
        "an envelope line holding a bare CR is no envelope line: the field behind it goes",
        arguments: [
            "From x@y.example Tue Nov 17 07:21:50 2026 \rX-Reservation: f\n", "From x@y.example\rX-Reservation: f Tue Nov 17 07:21:50 2026\n",
        ])
    func envelopeWithBareCR(line: String) {
        let bytes = Array((line + "To: b@c.example\n\nbody\n").utf8)
        let forged = ForgedFieldScanner.find(in: bytes, authservID: Self.id)
        #expect(forged.insertionPoint == 0)
        #expect(!String(decoding: Self.stripped(bytes, forged), as: UTF8.self).contains("X-Reservation"))
    }
}
