import Reservations

/// ISO 8601 / schema.org date and time values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let value = DateTimeValue(parsing: text) {
        _ = value.description
    }
    return 0
}
