import EventStore
import ICalendar
import ICalendarReading

/// The iCalendar writer's text escape (`ICalendarText`) as a round trip through the
/// project's calendar reader. The input, read as UTF-8 (what is not becomes U+FFFD), is an
/// event's title, place, notes and JSON-LD, up to ``maximumText`` bytes each; the first byte
/// chooses a part of it for the title. The object written for it:
/// - has only CRLF line ends: no byte a reader may end a line at (CR, LF, VT, FF, FS, GS, RS,
///   NEL, U+2028, U+2029) and no control other than TAB stands anywhere else, so Python's
///   `str.splitlines()` finds the lines a CRLF reader finds;
/// - has lines of at most 75 octets, each valid UTF-8 (folds never split a character);
/// - reads back, with ``ICalendarParser``, as one VEVENT with the written UID whose SUMMARY,
///   LOCATION, DESCRIPTION and STRUCTURED-DATA are the text as written: exactly, for text
///   without controls; with CR, LF and CRLF as LF and every other control a space otherwise.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: min(size - 1, maximumText)), as: UTF8.self)
    let cut = text.unicodeScalars.index(text.unicodeScalars.startIndex, offsetBy: min(Int(data[0]), text.unicodeScalars.count))
    let title = String(text.unicodeScalars[cut...])
    let start = EventTime(text: "2031-05-12T19:30:00-07:00", local: "2031-05-12T19:30:00", offsetSeconds: -25_200, epochSeconds: 1_936_499_400)
    let event = CalendarEvent(
        key: EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1"), category: .food, title: title, start: start, end: nil,
        location: text, notes: text, url: nil, status: .confirmed, reservationJSON: text)
    let stored = StoredEvent(event: event, sequence: 1, uid: "IWDSCA-1@reservoir", createdAt: 1_900_000_000, updatedAt: 1_900_000_100)
    let writer = ICalendarWriter()
    for object in [writer.object(stored), writer.write([stored])] {
        check(object, title: title, text: text)
    }
    return 0
}

/// Longest text taken from the input: its escaped form stays within the reader's line limit.
let maximumText = 32 << 10

func check(_ object: String, title: String, text: String) {
    let bytes = Array(object.utf8)
    var lineStart = 0
    var i = 0
    while i < bytes.count {
        if bytes[i] == 0x0D {
            precondition(i + 1 < bytes.count && bytes[i + 1] == 0x0A, "a CR without LF")
            precondition(i - lineStart <= ICalendarWriter.maxLineOctets, "a line longer than 75 octets")
            precondition(String(validating: bytes[lineStart..<i], as: UTF8.self) != nil, "a fold inside a character")
            i += 2
            lineStart = i
            continue
        }
        precondition(bytes[i] != 0x0A, "an LF without CR")
        i += 1
    }
    precondition(lineStart == bytes.count, "the object does not end with CRLF")
    for scalar in object.unicodeScalars where scalar != "\r" && scalar != "\n" && scalar != "\t" {
        precondition(!isControl(scalar), "U+\(String(scalar.value, radix: 16)) written raw")
    }

    let document = ICalendarParser.parse(bytes)
    let events = document.calendars.flatMap { $0.components("VEVENT") }
    precondition(events.count == 1, "\(events.count) events read back")
    let vevent = events[0]
    precondition(vevent.properties("UID").map(\.value) == ["IWDSCA-1@reservoir"], "another UID")
    func readBack(_ name: String) -> String? {
        let found = vevent.properties(name)
        precondition(found.count <= 1, "\(found.count) \(name) properties")
        return found.first?.text
    }
    precondition(readBack("SUMMARY") == expected(title), "SUMMARY does not read back")
    precondition(readBack("LOCATION") == (text.isEmpty ? nil : expected(text)), "LOCATION does not read back")
    precondition(readBack("DESCRIPTION") == (text.isEmpty ? nil : expected(text)), "DESCRIPTION does not read back")
    precondition(readBack("STRUCTURED-DATA") == (text.isEmpty ? nil : expected(text)), "STRUCTURED-DATA does not read back")
    if !text.unicodeScalars.contains(where: isControl) { precondition(expected(text) == text) }
}

/// What the text reads back as: CR, LF and CRLF an LF; TAB as it is; every other control and
/// line break a space.
func expected(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    var previousWasCR = false
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\r": out.append("\n")
        case "\n": if !previousWasCR { out.append("\n") }
        case "\t": out.append(scalar)
        default: out.append(isControl(scalar) ? " " : scalar)
        }
        previousWasCR = scalar == "\r"
    }
    return String(out)
}

/// A code point some reader ends a line at, or a control, written here from Unicode's own
/// lists rather than taken from the code under test: C0, DEL, C1 (NEL among them), U+2028, U+2029.
func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
}
