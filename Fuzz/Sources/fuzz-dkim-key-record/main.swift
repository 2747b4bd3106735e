@testable import DKIM

/// DKIM key records (RFC 6376 §3.6.1), including the public key decoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let record = try? DKIMKeyRecord(text) else { return 0 }
    _ = PublicKeyCache.parse(type: record.keyType, base64: record.publicKeyBase64)
    return 0
}
