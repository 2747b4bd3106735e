import MIME
import ReservoirBase

/// Signs messages with rsa-sha256 (RFC 6376) or ed25519-sha256 (RFC 8463).
public struct DKIMSigner {
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case unusablePrivateKey
        case rsaKeyTooShort(bits: Int)
        case signingFailed

        public var description: String {
            switch self {
            case .unusablePrivateKey: "not an RSA or Ed25519 private key in PEM (PKCS#8 or traditional)"
            case .rsaKeyTooShort(let bits): "an RSA key of \(bits) bits; RFC 8301 requires at least \(DKIMLimits.minimumRSAKeyBits)"
            case .signingFailed: "OpenSSL could not sign with this key"
            }
        }
    }

    /// Width at which the `b=` and `bh=` values are folded.
    static let foldWidth = 64
    /// Width past which the `h=` list continues on a new line.
    static let headerListWidth = 72

    /// The fields `reservoir sign` signs by default, each over-signed: the ones RFC 6376 §5.4.1
    /// says a signature should cover, whose added instance would change what a reader sees.
    public static let protectedFields = [
        "From", "To", "Cc", "Subject", "Date", "Message-ID", "Reply-To",
        "MIME-Version", "Content-Type", "Content-Transfer-Encoding",
    ]

    private let key: PrivateKey

    public init(privateKeyPEM: String) throws {
        guard let key = PrivateKey(pem: privateKeyPEM) else { throw Error.unusablePrivateKey }
        // RFC 8301 §3.2: signers MUST use at least 1024 bits.
        if key.kind == .rsa, key.bits < DKIMLimits.minimumRSAKeyBits { throw Error.rsaKeyTooShort(bits: key.bits) }
        self.key = key
    }

    public func publicKeyRecord() -> String {
        let type = key.kind == .rsa ? "rsa" : "ed25519"
        return "v=DKIM1; k=\(type); p=" + Base64.encode(key.publicKeyBytes())
    }

    var algorithm: String { key.kind == .rsa ? "rsa-sha256" : "ed25519-sha256" }

    /// The whole DKIM-Signature field, folded, ending with the message's own line break.
    /// `From` is signed even when `headers` omits it (RFC 6376 §5.4). With `overSign`, each
    /// named field is listed in `h=` once more than the message has instances of it
    /// (``overSigned(_:in:)``), so that no instance can be added without breaking the
    /// signature; without it, `h=` is `headers` as given. `bodyLength` adds `l=`: only that
    /// many bytes of the canonicalized body are signed (RFC 6376 §3.5; meant for tests of
    /// verifiers, since content after it is unprotected, §8.2).
    public func sign(
        _ message: [UInt8], domain: String, selector: String, headers: [String], overSign: Bool = false,
        canonicalization: DKIMCanonicalization, timestamp: Int64, expiration: Int64?,
        bodyLength: Int? = nil
    ) throws -> String {
        let parsed = Message(bytes: message)
        let lineBreak = Self.lineBreak(of: message)
        var names = headers.map { $0.trimmingASCII() }.filter { !$0.isEmpty }
        if !names.contains(where: { $0.lowercased() == "from" }) { names.insert("From", at: 0) }
        if overSign { names = Self.overSigned(names, in: parsed.header.fields) }
        let body = BodyHashComputation(
            bytes: message, range: parsed.bodyRange, relaxed: canonicalization.relaxedBody,
            limit: bodyLength)

        var field = "DKIM-Signature: v=1; a=\(algorithm); c=\(canonicalization.tag); d=\(domain); s=\(selector);" + lineBreak
        field += "\tt=\(timestamp);" + (expiration.map { " x=\($0);" } ?? "") + (bodyLength.map { " l=\($0);" } ?? "") + lineBreak
        field += "\th=" + Self.foldedList(names, lineBreak: lineBreak) + ";" + lineBreak
        field += "\tbh=" + Base64.encode(body.hash) + ";" + lineBreak
        field += "\tb="
        let unsigned = Array((field + lineBreak).utf8)
        let signatureHeader = Message(bytes: unsigned).header
        guard let signatureField = signatureHeader.fields.first,
            let tags = try? TagList(unsigned, in: signatureField.valueRange)
        else {
            throw Error.signingFailed
        }
        var data: [UInt8] = []
        let relaxed = canonicalization.relaxedHeader
        for picked in HeaderSelection.select(names, from: parsed.header.fields, excluding: nil) {
            data += HeaderCanonicalizer.canonicalize(message, picked, relaxed: relaxed)
        }
        data += SignedHeaderData.signatureField(unsigned, signatureField, tags: tags, relaxed: relaxed)
        let input = key.kind == .ed25519 ? SHA256Digest.hash(data) : data
        guard let signed = key.sign(input) else { throw Error.signingFailed }
        return field + Self.folded(Base64.encode(signed), lineBreak: lineBreak) + lineBreak
    }

    /// Each name (the first spelling of it, case aside) as many times as `fields` has instances
    /// of it, plus one. RFC 6376 §5.4.2: a verifier takes instances bottom-up and signs a name
    /// with none left as an empty field, so the extra name covers the absence of another
    /// instance; §8.15: a signature that does not, lets anyone add a second Subject or
    /// Content-Type above the signed one, which many readers show instead. An absent field is
    /// listed once: signed as absent.
    static func overSigned(_ names: [String], in fields: [HeaderField]) -> [String] {
        var seen: [String] = []
        var result: [String] = []
        for name in names {
            let lowered = name.lowercased()
            guard !seen.contains(lowered) else { continue }
            seen.append(lowered)
            let instances = fields.reduce(0) { $0 + ($1.hasName(name) ? 1 : 0) }
            result += Array(repeating: name, count: instances + 1)
        }
        return result
    }

    /// The `h=` names joined by colons, continued on a new line (folding whitespace, which
    /// `h=` allows around its colons, RFC 6376 §3.5) past ``headerListWidth``.
    static func foldedList(_ names: [String], lineBreak: String) -> String {
        var text = ""
        var lineLength = 0
        for (index, name) in names.enumerated() {
            if index > 0 {
                text += ":"
                lineLength += 1
                if lineLength + name.utf8.count > headerListWidth {
                    text += lineBreak + "\t "
                    lineLength = 0
                }
            }
            text += name
            lineLength += name.utf8.count
        }
        return text
    }

    /// The first line break of the message: CRLF or a bare LF.
    static func lineBreak(of message: [UInt8]) -> String {
        guard let lf = message.firstIndex(of: 0x0A) else { return "\r\n" }
        return lf > 0 && message[lf - 1] == 0x0D ? "\r\n" : "\n"
    }

    /// Base64 split into lines of ``foldWidth`` (FWS is ignored in b=, RFC 6376 §3.5).
    static func folded(_ text: String, lineBreak: String) -> String {
        var lines: [Substring] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            lines.append(rest.prefix(foldWidth))
            rest = rest.dropFirst(foldWidth)
        }
        return lines.joined(separator: lineBreak + "\t ")
    }
}
