@testable import MIME

/// RFC 2047 encoded words in unstructured text and RFC 2231 parameters.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = HeaderText.decode(bytes)
    _ = ContentType.parse(Array("text/plain; ".utf8) + bytes)
    return 0
}
