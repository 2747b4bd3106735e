@testable import MIME

/// Header sections and every structured field parser on each field's value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let header = HeaderSection.parse(bytes, in: 0..<bytes.count)
    for field in header.fields {
        let value = bytes[field.valueRange]
        _ = MailboxAddress.parseList(value)
        _ = ContentType.parse(value)
        _ = ContentDisposition.parse(value)
        _ = MessageDate.parse(value)
    }
    return 0
}
