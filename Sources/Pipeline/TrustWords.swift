import ARC
import DKIM
public import Trust
public import WalletPass

/// The words people read for a trust decision; the policy itself speaks in ``TrustRefusal``
/// values.
extension TrustDecision {
    /// One sentence: who vouched and whether the recipient was checked, or every reason the
    /// markup is not trusted.
    public var reason: String {
        if trusted, let vouching = vouchingDomain, case .page(_, let host) = path {
            var text = "https page from \(host), certificate verified; vouched for by its registered domain \(vouching)"
            if overrides.contains(.allowAnyDomain) { text += " (any domain allowed: --allow-any-domain)" }
            return text
        }
        if trusted, let vouching = vouchingDomain {
            var text = "DKIM signature by \(vouching) verified and aligned with \(fromDomain ?? "")"
            if case .arc(let sealer, let instance) = path {
                text =
                    "DKIM pass of \(vouching), aligned with \(fromDomain ?? ""), via ARC sealed by \(sealer) (i=\(instance); weaker: the sealer's word, --trust-arc-sealer)"
            }
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
        case .passTypeNotAllowed(let type):
            "the pass type \(type) is not allowed (add it with --allow-pass-type)"
        case .passNotVerified(let failure):
            failure.sentence
        case .organizerNotAligned(let organizer, let from):
            "the invitation's ORGANIZER \(organizer) is not aligned with From domain \(from); the signer does not vouch for someone else's event"
        case .organizerNotOneAddress(let organizer, let reason):
            "the invitation's ORGANIZER \(organizer) \(reason.sentence); readers would disagree on who organizes the event"
        case .forwardNotFromMe:
            "the message was forwarded by someone other than you (--me); anyone can forward a genuine confirmation"
        case .forwarderNotVerified:
            "the forward's From names you (--me), but neither an aligned DKIM signature nor your own verifier's Authentication-Results (--trust-authserv-id) shows you sent it"
        case .arcNotValid(let code):
            "the ARC chain does not validate (RFC 8617)" + (code.map { ": " + $0.rawValue } ?? "")
        case .arcSealerNotTrusted:
            "the ARC chain is not sealed by a trusted sealer (--trust-arc-sealer) from its first trusted instance up"
        case .arcNoAlignedPass:
            "the trusted ARC sealer recorded no DKIM pass aligned with the From domain"
        case .arcOriginalNotFound(let domain):
            "the trusted ARC sealer recorded a DKIM pass of \(domain), but the message holds no readable signature of \(domain) to say what it covered"
        case .pageNotHTTPS:
            "the page was fetched over plain http: anyone on the path could have written it"
        case .documentNoProof:
            "the document carries no proof of who wrote it (no signature, no verified https address)"
        case .railTicketNotVerified(let reason):
            switch reason {
            case "unsigned": "no rail key list (--rail-keys) to check the ticket's railway signature with"
            case "unknown-key": "the rail key list has no key of the railway and key id the ticket names"
            default: "the ticket's railway signature does not verify: the bar code was changed or not made by that railway"
            }
        case .railTicketSpecimen:
            "the rail ticket marks itself a specimen, not a journey"
        case .railKeyNotValid(let reason):
            switch reason {
            case "issued-after-key": "the rail ticket was issued after the end of its key's validity (a retired key)"
            case "issued-before-key": "the rail ticket was issued before its key's validity began"
            case "issued-in-future": "the rail ticket's issuing time is later than now"
            default: "the rail ticket carries no issuing time to check its key's validity with"
            }
        case .railKeyNotForOwner(let owner):
            "the rail key list allows the ticket's key for other product owners only, not \(owner.isEmpty ? "a ticket naming none" : "railway " + owner)"
        case .documentNotAddressed:
            "the document vouches for the booking, not for whose it is: it came neither in trusted mail addressed to you (--me) nor from you"
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

extension OrganizerAddressReason {
    /// What is wrong with the ORGANIZER, after its URI in a sentence.
    public var sentence: String {
        switch self {
        case .severalOrganizers: "is one of several ORGANIZER properties of the event (RFC 5545 allows one)"
        case .severalAddresses: "names several addresses (RFC 6068)"
        case .noAddress: "names no address"
        case .fragment: "has a fragment (#), which a mailto: URI does not define"
        case .malformed: "is not a mailto: URI naming one plain address"
        }
    }
}

extension PassVerificationFailure {
    /// The reason a pass is not verified, as a person reads it.
    public var sentence: String {
        switch self {
        case .unreadable: "the pass archive could not be read whole"
        case .noManifest: "the pass has no readable manifest.json"
        case .manifestMismatch(let file): "\(file) is not in the pass as its manifest lists it (changed, added or missing)"
        case .noSignature: "the pass has no readable signature"
        case .signatureInvalid: "the pass's signature does not verify over its manifest"
        case .noAnchors: "no certificate authority for passes is configured (--pass-ca)"
        case .anchorsUnreadable(let path): "the --pass-ca file \(path) holds no readable certificate"
        case .chainNotTrusted(let code): "the pass's signer does not chain to a --pass-ca certificate (OpenSSL verify error \(code))"
        case .certificateNotValidAtTime(let code):
            "the pass's signer certificate or its chain was not valid when the pass was signed (OpenSSL verify error \(code))"
        case .signingTimeInFuture: "the pass's signing time lies in the future"
        case .weakKey(let bits): "the pass is signed with a \(bits)-bit RSA key; at least 2048 bits are required"
        case .signerUnnamed: "the pass's signer certificate names no single pass type (UID) and team (OU)"
        case .identityMismatch(let pass, let certificate): "pass.json names \(pass) but the certificate was issued to \(certificate)"
        }
    }
}

extension DocumentTrustDecision {
    /// One sentence: who signed the document, or why it is not trusted.
    public var reason: String {
        if let refusal { return refusal.sentence }
        switch signer {
        case .walletPass(let signer): return "vouched by \(signer.issuerText)"
        case .railway(let rics, let name, _): return "signed by \(name.map { "\($0), " } ?? "")railway \(rics)"
        case nil: return "no decision"
        }
    }
}

extension PassSigner {
    /// `pass type pass.com.airline.example (team A1B2C3, Airline Example Ltd)`.
    public var issuerText: String {
        "pass type \(passTypeIdentifier) (team \(teamIdentifier)" + (organization.map { ", " + $0 } ?? "") + ")"
    }
}
