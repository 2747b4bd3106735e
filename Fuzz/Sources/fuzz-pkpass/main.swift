import JSON
import Zip

@testable import WalletPass

/// Wallet passes. The first byte picks the entry point: 0 reads the rest as pass.json and maps
/// it to reservations; 1 verifies the rest as a CMS signature over a fixed manifest (OpenSSL's
/// DER reader, signer and attribute handling); anything else reads and verifies the rest as a
/// whole .pkpass archive.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    switch mode {
    case 0:
        // With and without a signing time, so every evidence for a bar code's year is reached.
        let signedAt: Int64? = rest.count % 2 == 0 ? 1_795_348_800 : nil
        for value in TolerantJSONReader.read(rest).values {
            if let content = PassContent(value) { _ = PassReservations(content, signedAt: signedAt, now: 1_795_348_800) }
        }
    case 1:
        _ = PassSignatureVerifier(anchors: anchors, now: 1_795_348_800).verify(signature: rest, manifest: Array(#"{"pass.json":"0"}"#.utf8))
    default:
        _ = WalletPass.read(rest, anchors: anchors, now: 1_795_348_800)
    }
    return 0
}

/// No anchors: every path up to the chain check runs, and the chain check refuses.
let anchors = PassTrustAnchors(paths: [])
