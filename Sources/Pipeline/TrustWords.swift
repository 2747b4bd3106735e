import DKIM
public import Trust

/// The words people read for a trust decision; the policy itself speaks in ``TrustRefusal``
/// values.
extension TrustDecision {
    /// One sentence: who vouched and whether the recipient was checked, or every reason the
    /// markup is not trusted.
    public var reason: String {
        if trusted, let vouching = vouchingDomain {
            var text = "DKIM signature by \(vouching) verified and aligned with \(fromDomain ?? "")"
            if overrides.contains(.allowAnyDomain) { text += " (any domain allowed: --allow-any-domain)" }
            switch recipient {
            case .notChecked: text += "; recipient not checked (no --me)"
            case .matched(let me): text += "; addressed to \(me)"
            case .notMatched: break
            }
            return text
        }
        let why = refusals.map(\.sentence).joined(separator: "; ")
        if trusted { return "UNVERIFIED (--allow-unverified): " + (why.isEmpty ? "no signature checked" : why) }
        return why.isEmpty ? "no decision" : why
    }

    /// The testing switches in force, as the options that turned them on.
    public var overrideFlags: [String] { overrides.map { "--" + $0.rawValue } }
}

extension TrustRefusal {
    /// The reason as a person reads it.
    public var sentence: String {
        switch self {
        case .noFrom:
            "the message has no From address"
        case .multipleFrom(let count):
            "the message has \(count) From addresses; nothing can vouch for it"
        case .noSignature:
            "the message has no DKIM signature"
        case .signatureNotValid(let domain, let result):
            "DKIM \(result.rawValue) for \(domain.isEmpty ? "a signature without d=" : domain)"
        case .notAligned(let signing, let from):
            "the DKIM signature by \(signing) is valid but not aligned with From domain \(from)"
        case .testingKey(let domain):
            "the key of \(domain) is in testing mode (t=y)"
        case .partialBody(let domain, let length):
            "the DKIM signature by \(domain) covers only the first \(length) bytes of the body (l=); the rest could have been added by anyone"
        case .headerLimit:
            "the header has more fields than Reservoir reads; what follows them is unseen"
        case .duplicateField(let name):
            "the message has more than one \(Self.displayName(name)) field; the signature does not decide which one is read"
        case .unsignedStructure(let name):
            "\(Self.displayName(name)) is not covered by the DKIM signature (h=), so anyone could have set how the signed body is read"
        case .whitespaceInBoundary:
            "a multipart boundary holds white space, which relaxed canonicalization does not sign"
        case .structureNotVerifiable:
            "the message is too large to check its structure against the signed body"
        case .domainNotAllowed(let domain):
            "\(domain) is not an allowed domain (add it with --allow-domain or --allowed-domains)"
        case .recipientNotSigned:
            "To or Cc is not covered by the DKIM signature, so it cannot show the message was sent to you (--me)"
        case .recipientNotListed:
            "no signed To or Cc names you (--me)"
        case .organizerNotAligned(let organizer, let from):
            "the invitation's ORGANIZER \(organizer) is not aligned with From domain \(from); the signer does not vouch for someone else's event"
        }
    }

    /// A lowercased field name as RFC 5322 and RFC 2045 write it.
    static func displayName(_ name: String) -> String {
        switch name {
        case "mime-version": "MIME-Version"
        case "message-id": "Message-ID"
        case "cc": "Cc"
        case "bcc": "Bcc"
        default: name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
        }
    }
}
