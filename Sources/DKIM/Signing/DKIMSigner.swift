import MIME

/// Signs messages with rsa-sha256 (RFC 6376) or ed25519-sha256 (RFC 8463).
public struct DKIMSigner {
    public enum Error: Swift.Error, Equatable {
        case unusablePrivateKey
        case rsaKeyTooShort(bits: Int)
        case signingFailed
    }

    /// Width at which the `b=` and `bh=` values are folded.
    static let foldWidth = 64

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
    /// `From` is signed even when `headers` omits it (RFC 6376 §5.4). `bodyLength` adds `l=`:
    /// only that many bytes of the canonicalized body are signed (RFC 6376 §3.5; meant for
    /// tests of verifiers, since content after it is unprotected, §8.2).
    public func sign(_ message: [UInt8], domain: String, selector: String, headers: [String],
                     canonicalization: DKIMCanonicalization, timestamp: Int64, expiration: Int64?,
                     bodyLength: Int? = nil) throws -> String {
        let parsed = Message(bytes: message)
        let lineBreak = Self.lineBreak(of: message)
        var names = headers.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        if !names.contains(where: { $0.lowercased() == "from" }) { names.insert("From", at: 0) }
        let body = BodyHashComputation(bytes: message, range: parsed.bodyRange, relaxed: canonicalization.relaxedBody,
                                        limit: bodyLength)

        var field = "DKIM-Signature: v=1; a=\(algorithm); c=\(canonicalization.tag); d=\(domain); s=\(selector);" + lineBreak
        field += "\tt=\(timestamp);" + (expiration.map { " x=\($0);" } ?? "") + (bodyLength.map { " l=\($0);" } ?? "") + lineBreak
        field += "\th=" + names.joined(separator: ":") + ";" + lineBreak
        field += "\tbh=" + Base64.encode(body.hash) + ";" + lineBreak
        field += "\tb="
        let unsigned = Array((field + lineBreak).utf8)
        let signatureHeader = Message(bytes: unsigned).header
        guard let signatureField = signatureHeader.fields.first,
              let tags = try? TagList(unsigned, in: signatureField.valueRange) else {
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

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
