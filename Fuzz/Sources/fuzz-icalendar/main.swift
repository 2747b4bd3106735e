import ICalendarReading

/// The calendar reader on arbitrary bytes (an `.ics` attachment): it never traps, stays within
/// its limits, reads the same twice, notes only lines the object has, and reads a document
/// without CR the same with every LF made CRLF.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // No zone files: the fuzzer explores the grammar and VTIMEZONE rules, not the file system.
    let object = ICalendarReader.read(bytes, zones: { _ in nil })
    guard object.events.count <= ICalendarLimits.maximumEvents else { fatalError("more events than the limit") }
    let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    for note in object.diagnostics {
        if let line = note.line, line < 1 || line > lines { fatalError("note outside the object: \(note)") }
    }
    let again = ICalendarReader.read(bytes, zones: { _ in nil })
    guard again.events == object.events, again.diagnostics == object.diagnostics else { fatalError("not deterministic") }
    if !bytes.contains(0x0D) {
        var crlf: [UInt8] = []
        crlf.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            if byte == 0x0A { crlf.append(0x0D) }
            crlf.append(byte)
        }
        let other = ICalendarReader.read(crlf, zones: { _ in nil })
        if bytes.count * 2 < ICalendarLimits.maximumBytes, other.events != object.events {
            fatalError("CRLF reads differently from LF")
        }
    }
    return 0
}
