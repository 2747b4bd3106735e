import DKIM
import DNS
import MIME

@testable import ARC

/// ARC header parsing and chain validation (RFC 8617 §5.2) on fuzzed messages. The seeds are
/// chains sealed with the sample key (scripts/fuzz), whose public record the resolver holds, so
/// mutations reach the seal and message-signature checks. Validation never traps; `none` exactly
/// when the message has no ARC field; a `pass` has 1 to 50 instances numbered in order, `cv=none`
/// first and `cv=pass` after, and a passing latest ARC-Message-Signature; a `fail` has a code.
nonisolated(unsafe) let resolver = KeysFile(
    text: """
        s2026._domainkey.sealer.example TXT "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtSagi+z/xOKsgBpW7niAKRlO4QLFfs3fqK8HPaDgttR3AP5N3F3EeTgUVD5u3WWGUF5jizR1hYqD+x3iQCWY6yUsueEwRaHTe4HWRgNqG/sZ/TMDoDzZZlsNmMEeai4Vdkw/Ds9x4X8FN/WF0tlMgSd4QcCUVjfbgHe6uzjftiEtftjSVaIZYMlXNkkzVRHRR" "hn9Xgtp+vhBiDPpvDQ0zvEYALb+Q/MPw+/5qfI4LSr3SSkXKvOAiJlUVi/1q0jM/+2EXMbEZhqWy2DX6+YsXnOr+lk4owvKPxaXJhi63h5hIy9VrC68X0qxvqqEML8gWbuJqP8PjsGny9FQ1gkjhQIDAQAB"
        """)
nonisolated(unsafe) let verifier = DKIMVerifier(resolver: resolver, now: 1_795_348_800)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let message = Message(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    for field in message.header.fields where field.hasName("ARC-Authentication-Results") {
        if let read = ARCValidator.resultsInstance(message.bytes[field.valueRange]) {
            precondition((1...ARCLimits.maxInstances).contains(read.instance))
        }
    }
    let validation = ARCValidator.validate(message, verifier: verifier)
    precondition((validation.result == .none) == !ARCValidator.hasARCFields(message), "none exactly without ARC fields")
    switch validation.result {
    case .none:
        precondition(validation.instances.isEmpty)
    case .pass:
        precondition((1...ARCLimits.maxInstances).contains(validation.instances.count))
        for (offset, instance) in validation.instances.enumerated() {
            precondition(instance.instance == offset + 1)
            precondition(instance.chainValidation == (offset == 0 ? "none" : "pass"))
        }
        precondition(validation.latestMessageSignature?.result == .pass)
    case .fail:
        precondition(validation.code != nil && validation.latestMessageSignature == nil)
    }
    return 0
}
