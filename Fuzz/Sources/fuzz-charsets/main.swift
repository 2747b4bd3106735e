@testable import MIME

/// Charset decoding: the first line is the label, the rest the bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0x0A) ?? min(bytes.count, 12)
    let label = String(decoding: bytes[0..<split], as: UTF8.self)
    let decoded = Charset(label: label).decodeToUTF8(bytes[min(split + 1, bytes.count)...])
    // The output is valid UTF-8 whatever came in.
    precondition(String(validating: decoded.utf8, as: UTF8.self) != nil, "invalid UTF-8 from \(label)")
    return 0
}
