@testable import DKIM

/// DKIM-Signature tag lists (RFC 6376 §3.2) and the signature built from them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let tags = try? TagList(bytes, in: 0..<bytes.count) else { return 0 }
    _ = try? DKIMSignature(tags: tags, now: 1_800_000_000)
    return 0
}
