import ARC
import DKIM
import DNS
import MIME

@testable import Trust

/// The ARC path's verdict on fuzzed messages (docs/SECURITY.md, "ARC"): the message's DKIM
/// signatures verified, its chain validated, the policy deciding with two trusted sealers. The
/// seeds are sealed chains (scripts/fuzz) and the attack corpus's ARC cases, whose keys the
/// resolver holds. A message trusted through ARC must still hold a DKIM-Signature of the
/// vouching domain whose tags read, without a testing key or an `l=` short of the body, whose
/// `h=` covers the top-level `Content-Type` when there is one; the markup is read through a
/// view of that domain's signature. Deciding never traps.
nonisolated(unsafe) let resolver = KeysFile(
    text: ["sealer.example", "home.example", "epicsteak.example"].map { domain in
        "s2026._domainkey.\(domain) TXT \"v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtSagi+z/xOKsgBpW7niAKRlO4QLFfs3fqK8HPaDgttR3AP5N3F3EeTgUVD5u3WWGUF5jizR1hYqD+x3iQCWY6yUsueEwRaHTe4HWRgNqG/sZ/TMDoDzZZlsNmMEeai4Vdkw/Ds9x4X8FN/WF0tlMgSd4QcCUVjfbgHe6uzjftiEtftjSVaIZYMlXNkkzVRHRR\" \"hn9Xgtp+vhBiDPpvDQ0zvEYALb+Q/MPw+/5qfI4LSr3SSkXKvOAiJlUVi/1q0jM/+2EXMbEZhqWy2DX6+YsXnOr+lk4owvKPxaXJhi63h5hIy9VrC68X0qxvqqEML8gWbuJqP8PjsGny9FQ1gkjhQIDAQAB\"\n"
    }.joined())
nonisolated(unsafe) let verifier = DKIMVerifier(resolver: resolver, now: 1_795_348_800)
let policy = TrustPolicy(
    allowedDomains: ["epicsteak.example"], trustedARCSealers: ["sealer.example", "home.example"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let message = Message(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    let signatures = verifier.verify(message)
    let arc = ARCValidator.validate(message, verifier: verifier)
    let outcome = policy.decide(message, signatures: signatures, arc: arc)
    guard outcome.decision.trusted, case .arc = outcome.decision.path, let domain = outcome.decision.vouchingDomain else { return 0 }
    let originals = signatures.filter { $0.domain == domain }
    precondition(!originals.isEmpty, "trusted through ARC without a signature of \(domain)")
    for original in originals where policy.arcOriginalRefusal(original, domain: domain) == nil {
        precondition(!original.testing && original.canonicalization != nil)
        precondition(original.bodyLength == nil || original.coversWholeBody)
    }
    let view = outcome.signedView
    precondition(view?.domain == domain, "the markup is read through the original signature's view")
    if message.header.count("content-type") == 1, let view {
        precondition(view.signedHeaders.contains("content-type"), "an unsigned Content-Type under ARC")
    }
    return 0
}
