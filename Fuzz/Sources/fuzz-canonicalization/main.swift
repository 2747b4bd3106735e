@testable import DKIM
@testable import MIME

/// Simple and relaxed canonicalization of every header field and of the body, in one piece
/// and split at an input-chosen point (the streaming result must not depend on the split).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let message = Message(bytes: bytes)
    for field in message.header.fields {
        _ = HeaderCanonicalizer.canonicalize(bytes, field, relaxed: false)
        _ = HeaderCanonicalizer.canonicalize(bytes, field, relaxed: true)
    }
    let body = Array(bytes[message.bodyRange])
    for relaxed in [false, true] {
        var whole = BodyCanonicalizer(relaxed: relaxed)
        whole.feed(body)
        whole.finish()
        let cut = body.isEmpty ? 0 : Int(body[0]) % (body.count + 1)
        var split = BodyCanonicalizer(relaxed: relaxed)
        split.feed(body[0..<cut])
        split.feed(body[cut...])
        split.finish()
        precondition(whole.output == split.output, "canonicalization depends on where the body is split")
    }
    return 0
}
