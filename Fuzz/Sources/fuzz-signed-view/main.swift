import DKIM
import MIME
import Trust

/// The signed-view builder, differential against the ordinary reading: under a signature that
/// covers every field once and signs the body as it is (simple), the view is the message itself;
/// under relaxed canonicalization it is the message itself unless it had to be read again from
/// the canonical body, and that reading is its own view (canonicalization is idempotent).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let message = Message(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    _ = SignedView.messageRefusal(message)
    let names = Array(Set(message.header.fields.map { $0.name.lowercased() }))
    func signature(_ c: DKIMCanonicalization) -> DKIMVerification {
        DKIMVerification(result: .pass, reason: "", domain: "example.com", signedHeaders: names, canonicalization: c)
    }
    switch SignedView.read(message, signature: signature(.simpleSimple)) {
    case .read(let view):
        precondition(!view.isCanonicalReading && view.message.bytes == message.bytes, "simple: the view is the message")
        precondition(view.message.htmlParts.count == message.htmlParts.count)
    case .refused(let refusal):
        if case .duplicateField = refusal {} else { preconditionFailure("simple, every field signed: \(refusal)") }
    }
    switch SignedView.read(message, signature: signature(.relaxedRelaxed)) {
    case .read(let view):
        if view.isCanonicalReading {
            if case .read(let again) = SignedView.read(view.message, signature: signature(.relaxedRelaxed)) {
                precondition(!again.isCanonicalReading, "the canonical reading is its own view")
            }
        } else {
            precondition(view.message.bytes == message.bytes)
        }
        for part in view.message.htmlParts { _ = view.message.text(of: part) }
    case .refused:
        break
    }
    return 0
}
