import JSON

/// The tolerant JSON reader: repairs and depth limits on arbitrary text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = TolerantJSONReader.read(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
