@testable import TimeZones

/// POSIX TZ strings of TZif footers (RFC 8536 §3.3): a string that parses gives each year's
/// two changes (none without daylight time) in order, and answers for any instant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let rule = try? POSIXTimeZoneRule(parsing: bytes) else { return 0 }
    for year in [1, 1970, 2031, 2032, 9999] {
        let changes = rule.transitions(year: year)
        precondition(changes.count == (rule.daylight == nil ? 0 : 2))
        if changes.count == 2 { precondition(changes[0].atUTC <= changes[1].atUTC) }
    }
    for instant: Int64 in [.min, -1, 0, 1_932_598_800, .max] { _ = rule.type(atUTC: instant) }
    _ = VTimezoneWriter.recurrence(of: rule)
    return 0
}
