@testable import Documents

/// What `reservoir-document` writes, as its caller reads it (``DocumentReader/parse(_:)``): any
/// bytes a failing or hostile reader could write give a reading within its bounds, and a code
/// read is one its grammar allows (its base64 through the shared reader, which fuzz-feed reads too).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let output = Array(UnsafeBufferPointer(start: data, count: size))
    let reading = DocumentReader.parse(output)
    precondition(reading.barcodes.count <= 64)
    for code in reading.barcodes {
        precondition(code.page >= 1 && !code.format.isEmpty)
        precondition(code.bytes.count <= output.count)
    }
    return 0
}
