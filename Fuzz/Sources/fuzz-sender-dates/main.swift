import Reservations

/// Dates and times as senders write them (`DateTimeReading.read`: strict ISO 8601, then the
/// repairs of `SenderDateTimeParser`). Whatever is read is a real civil time: the strict
/// reading of its `local` gives it back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    switch DateTimeReading.read(text) {
    case .read(let value):
        check(value)
    case .ambiguous(let readings):
        check(readings.dayFirst)
        check(readings.monthFirst)
    case .refused:
        break
    }
    return 0
}

func check(_ value: DateTimeValue) {
    guard let again = DateTimeValue(parsing: value.local), again.local == value.local else {
        fatalError("read as \(value.local), which is not a civil time")
    }
}
