public import DKIM
public import MIME

/// How the outer message of a forward was shown to come from the user.
public enum ForwarderVouch: Sendable, Equatable {
    /// The outer message's own DKIM signature: a pass of this `d=`, aligned with its From.
    case dkim(domain: String)
    /// The topmost `Authentication-Results` field of the user's own verifier
    /// (`--trust-authserv-id`) records `dkim=pass` for this aligned `header.d`.
    case authenticationResults(authservID: String, domain: String)
}

/// The verdict on the outer message of a forward: who forwarded it, and whether that was the
/// user, proven. The inner message's own decision is separate (``TrustDecision``); its markup
/// is trusted only when both hold.
public struct ForwarderCheck: Sendable, Equatable {
    /// The outer message's From address, when it has exactly one.
    public var forwarder: String?
    /// How the forwarder was shown to be the user; nil when not.
    public var vouch: ForwarderVouch?
    /// Why the forwarder is not taken for the user; nil when ``vouch`` is set.
    public var refusal: TrustRefusal?

    public init(forwarder: String?, vouch: ForwarderVouch?, refusal: TrustRefusal?) {
        self.forwarder = forwarder
        self.vouch = vouch
        self.refusal = refusal
    }

    public var isUser: Bool { vouch != nil }
}

extension TrustPolicy {
    /// Whether the outer message of a forward comes from the user: its one From address is
    /// among the `--me` addresses, and either a DKIM signature of the outer message passes,
    /// aligned with that From, through a signed view that holds (``SignedView``), or the topmost
    /// `Authentication-Results` field of ``trustedAuthservID`` records `dkim=pass` with a
    /// `header.d` (or `header.i` domain) aligned with it. The allowed domains do not apply:
    /// the user's own domain vouches for the user only.
    public func forwarder(_ message: Message, from: [MailboxAddress], signatures: [DKIMVerification]) -> ForwarderCheck {
        guard from.count == 1, message.header.count("from") == 1, let address = from.first else {
            return ForwarderCheck(forwarder: nil, vouch: nil, refusal: .forwardNotFromMe)
        }
        let shown = address.address
        guard case .matched = recipientCheck([address]) else {
            return ForwarderCheck(forwarder: shown, vouch: nil, refusal: .forwardNotFromMe)
        }
        let fromDomain = address.domain
        if SignedView.messageRefusal(message) == nil {
            for signature in signatures where dkimRefusal(signature, fromDomain: fromDomain) == nil {
                if case .read = SignedView.read(message, signature: signature) {
                    return ForwarderCheck(forwarder: shown, vouch: .dkim(domain: signature.domain), refusal: nil)
                }
            }
        }
        if let domain = authenticationResultsPass(message, fromDomain: fromDomain), let id = trustedAuthservID {
            return ForwarderCheck(forwarder: shown, vouch: .authenticationResults(authservID: id, domain: domain), refusal: nil)
        }
        return ForwarderCheck(forwarder: shown, vouch: nil, refusal: .forwarderNotVerified)
    }

    /// The aligned `header.d` of a `dkim=pass` in the topmost `Authentication-Results` field
    /// claiming ``trustedAuthservID``. Nil when no id is trusted, when it is the id Reservoir's
    /// own filter writes (``ownAuthservID``: such fields arriving with a message are forged
    /// and stripped, RFC 8601 §5, so none can be told from the user's verifier's), when the
    /// topmost field does not read, or when it records no such pass. Fields below the topmost
    /// one are never read: whoever sent the message wrote them.
    func authenticationResultsPass(_ message: Message, fromDomain: String) -> String? {
        guard let id = trustedAuthservID, !id.isEmpty else { return nil }
        if let own = ownAuthservID, AuthenticationResultsPayload.claims(Array(own.utf8), authservID: id) { return nil }
        let bytes = message.bytes
        guard
            let field = message.header.fields.first(where: {
                $0.hasName("Authentication-Results") && AuthenticationResultsPayload.claims(bytes[$0.valueRange], authservID: id)
            }),
            case .success(let payload) = AuthenticationResultsPayload.parse(bytes[field.valueRange])
        else { return nil }
        for result in payload.results where result.method == "dkim" && result.result == "pass" {
            let domains = result.properties.compactMap { property -> String? in
                guard property.type == "header" else { return nil }
                switch property.name {
                case "d": return property.value
                case "i": return property.value.split(separator: "@").last.map(String.init)
                default: return nil
                }
            }
            if let aligned = domains.first(where: { isAligned(signingDomain: $0.lowercased(), fromDomain: fromDomain) }) {
                return aligned.lowercased()
            }
        }
        return nil
    }
}
