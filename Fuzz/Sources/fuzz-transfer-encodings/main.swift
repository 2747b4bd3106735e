@testable import MIME

/// Quoted-printable and base64 decoding of arbitrary bodies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for encoding in [TransferEncoding.base64, .quotedPrintable, .sevenBit, .other("x-unknown")] {
        let decoded = TransferDecoding.decode(bytes, in: 0..<bytes.count, encoding: encoding)
        // Decoding never grows the data (base64 shrinks it, QP never expands).
        precondition(decoded.bytes.count <= bytes.count, "\(encoding) decoded to more bytes than it read")
    }
    return 0
}
