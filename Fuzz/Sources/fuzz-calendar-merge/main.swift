import EventStore
import ICalendar
import ICalendarReading

/// ``CalendarObjectMerge`` on a hostile copy: the input after its first byte, read as UTF-8, is
/// the copy a calendar holds; the first byte's low bit makes Reservoir's revision a
/// cancellation. Whatever the copy:
/// - the merge returns (no trap, no time-out);
/// - a copy not merged gives Reservoir's object exactly;
/// - the result has only CRLF line ends, lines of at most 75 octets, and no control but TAB;
/// - it reads back, with ``ICalendarParser``, as one VCALENDAR whose one VEVENT of the UID
///   without RECURRENCE-ID has Reservoir's UID, DTSTART, SEQUENCE, STATUS and SUMMARY, once
///   each, and no VEVENT of another UID;
/// - merging the result again with the same revision gives the result (when within the bounds).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let server = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let ours = ICalendarWriter().object(revision(cancelled: data[0] & 1 == 1))
    let merged = CalendarObjectMerge.merge(server: server, ours: ours)
    if merged.unreadable != nil { precondition(merged.text == ours, "an unreadable copy gave something else than the revision") }
    check(merged.text, ours: ours)
    let again = CalendarObjectMerge.merge(server: merged.text, ours: ours)
    precondition(
        again.unreadable == nil || again.unreadable == .tooLarge, "the merged object cannot be read: \(String(describing: again.unreadable))")
    if again.unreadable == nil { precondition(again.text == merged.text, "merging twice changes the object") }
    return 0
}

func revision(cancelled: Bool) -> StoredEvent {
    let start = EventTime(text: "2031-05-12T19:30:00-07:00", local: "2031-05-12T19:30:00", offsetSeconds: -25_200, epochSeconds: 1_936_499_400)
    let event = CalendarEvent(
        key: EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1"), category: .food, title: "Reservation: EPIC Steak",
        start: start,
        end: nil,
        location: "EPIC Steak", notes: "Party of 2", url: nil, status: cancelled ? .cancelled : .confirmed, reservationJSON: "{}")
    return StoredEvent(event: event, sequence: 3, uid: "IWDSCA-1@reservoir", createdAt: 1_900_000_000, updatedAt: 1_900_000_100)
}

func check(_ object: String, ours: String) {
    let bytes = Array(object.utf8)
    var lineStart = 0
    var i = 0
    while i < bytes.count {
        if bytes[i] == 0x0D {
            precondition(i + 1 < bytes.count && bytes[i + 1] == 0x0A, "a CR without LF")
            precondition(i - lineStart <= ICalendarWriter.maxLineOctets, "a line longer than 75 octets")
            i += 2
            lineStart = i
            continue
        }
        precondition(bytes[i] != 0x0A, "an LF without CR")
        precondition(bytes[i] >= 0x20 && bytes[i] != 0x7F || bytes[i] == 0x09, "a control written")
        i += 1
    }
    precondition(lineStart == bytes.count, "the object does not end with CRLF")

    let document = ICalendarParser.parse(bytes)
    precondition(document.calendars.count == 1, "\(document.calendars.count) calendars")
    let events = document.calendars[0].components("VEVENT")
    precondition(events.allSatisfy { $0.properties("UID").map(\.value) == ["IWDSCA-1@reservoir"] }, "another UID")
    let masters = events.filter { $0.property("RECURRENCE-ID") == nil }
    precondition(masters.count == 1, "\(masters.count) masters")
    let master = masters[0]
    for name in ["DTSTART", "SEQUENCE", "STATUS", "SUMMARY", "DTSTAMP"] {
        precondition(master.properties(name).count == 1, "\(master.properties(name).count) \(name)")
    }
    let revision = ICalendarParser.parse(Array(ours.utf8)).calendars[0].components("VEVENT")[0]
    for name in ["UID", "DTSTART", "DTEND", "SEQUENCE", "STATUS", "SUMMARY", "DTSTAMP"] {
        precondition(master.properties(name).map(\.value) == revision.properties(name).map(\.value), "\(name) is not the revision's")
    }
}
