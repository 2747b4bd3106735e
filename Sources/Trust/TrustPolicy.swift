public import ARC
public import DKIM
public import MIME
import ReservoirBase
public import WalletPass

/// Who may put events on the calendar: Apple's rules for reservation markup, made explicit.
///
/// Markup is trusted only when a DKIM signature passes, its `d=` is aligned with the From
/// domain, the key is not in testing mode (`t=y`), the signature covers the whole body (no
/// unsigned content after `l=`), its signed view holds (``SignedView``: singleton fields
/// once, the MIME structure decided by signed fields), the message has exactly one From
/// field, the From domain is allowed, and — with `--me` — a signed To or Cc names the user.
/// The two testing switches relax this loudly, as Apple's developer settings do.
public struct TrustPolicy: Sendable {
    public enum Alignment: String, Sendable {
        /// `d=` equals the From domain.
        case strict
        /// `d=` and the From domain share an organizational domain (RFC 7489 §3.1.1).
        case relaxed
    }

    /// Domains whose markup is accepted; an entry starting with `.` also allows subdomains.
    public var allowedDomains: [String]
    /// Testing switch: accept any From domain.
    public var allowAnyDomain: Bool
    /// Testing switch: accept markup without a valid aligned DKIM signature.
    public var allowUnverified: Bool
    public var alignment: Alignment
    public var publicSuffixes: PublicSuffixList?
    /// The user's own addresses (`--me`), lowercased; `@domain` stands for a whole domain.
    /// When set, markup is trusted only if a signed To or Cc names one of them.
    public var recipients: [String]
    /// `--recipient-delimiter`: a signed To or Cc naming `jane+trips@` names `jane@` too
    /// (RFC 5233 subaddress), unless `jane+trips@` is listed itself.
    public var recipientDelimiter: RecipientDelimiter
    /// Pass type identifiers whose Wallet passes are trusted (`--allow-pass-type`); an entry
    /// ending in `.*` allows every identifier under it (``decide(pass:)``).
    public var allowedPassTypes: [String]
    /// The certificates a pass's signer must chain to (`--pass-ca`), read on first use.
    public var passAnchors: PassTrustAnchors
    /// The authserv-id the user's own verifier writes (`--trust-authserv-id`): its topmost
    /// `Authentication-Results` field may show that a forward comes from the user
    /// (``forwarder(_:from:signatures:)``).
    public var trustedAuthservID: String?
    /// The authserv-id Reservoir's filter writes (`--authserv-id`): fields claiming it that
    /// arrive with a message are forged, so it is never taken for the user's verifier's.
    public var ownAuthservID: String?
    /// The ARC sealers whose recorded DKIM result is accepted (`--trust-arc-sealer`),
    /// lowercased; empty (the default) turns the ARC path off.
    public var trustedARCSealers: [String]

    public init(
        allowedDomains: [String] = [], allowAnyDomain: Bool = false, allowUnverified: Bool = false,
        alignment: Alignment = .relaxed, publicSuffixes: PublicSuffixList? = nil, recipients: [String] = [],
        allowedPassTypes: [String] = [], passAnchors: PassTrustAnchors = PassTrustAnchors(paths: []),
        trustedAuthservID: String? = nil, ownAuthservID: String? = nil, trustedARCSealers: [String] = [],
        recipientDelimiter: RecipientDelimiter = .standard
    ) {
        self.recipientDelimiter = recipientDelimiter
        self.allowedPassTypes = allowedPassTypes
        self.passAnchors = passAnchors
        self.trustedARCSealers = trustedARCSealers.map { $0.lowercased() }
        self.trustedAuthservID = trustedAuthservID
        self.ownAuthservID = ownAuthservID
        self.allowedDomains = allowedDomains.map { $0.lowercased() }
        self.recipients = recipients.map { $0.lowercased() }
        self.allowAnyDomain = allowAnyDomain
        self.allowUnverified = allowUnverified
        self.alignment = alignment
        self.publicSuffixes = publicSuffixes
    }

    /// This policy with `domains` allowed besides its own (the domains a person allowed, kept
    /// in the store).
    public func allowing(_ domains: [String]) -> TrustPolicy {
        var policy = self
        policy.allowedDomains += domains.map { $0.lowercased() }
        return policy
    }

    /// Reads an allowed-domains file: one domain a line, `#` comments, a leading `.` to
    /// include subdomains.
    public static func allowedDomains(fromFileText text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = content.trimmingASCII { ASCII.isSpaceOrTab($0) || $0 == 0x0D }
            return trimmed.isEmpty ? nil : trimmed.lowercased()
        }
    }

    /// Whether the From domain is on the allowed list. Both are compared in A-labels (``IDNA``),
    /// so `公司.cn` and `xn--55qx5d.cn` name the same entry; a domain libidn2 refuses is not
    /// allowed.
    public func isAllowed(domain: String) -> Bool {
        guard let domain = IDNA.asciiDomain(domain) else { return false }
        return allowedDomains.contains { entry in
            let subdomains = entry.hasPrefix(".")
            guard let base = IDNA.asciiDomain(subdomains ? String(entry.dropFirst()) : entry) else { return false }
            return domain == base || (subdomains && domain.hasSuffix("." + base))
        }
    }

    /// Whether a signing domain vouches for a From domain. Both are compared in A-labels
    /// (``IDNA``): a From domain in U-labels (SMTPUTF8 mail, RFC 6531) aligns with the same
    /// name as an A-label `d=`, and a domain libidn2 refuses aligns with nothing.
    public func isAligned(signingDomain: String, fromDomain: String) -> Bool {
        guard let d = IDNA.asciiDomain(signingDomain), let from = IDNA.asciiDomain(fromDomain) else { return false }
        if d == from { return true }
        // Relaxed alignment compares organizational domains, which only host names have: a
        // "domain" with a comment or other punctuation in it aligns with nothing else.
        guard alignment == .relaxed, let psl = publicSuffixes, Self.isHostName(d), Self.isHostName(from) else { return false }
        guard let a = psl.organizationalDomain(of: d), let b = psl.organizationalDomain(of: from) else { return false }
        return a == b
    }

    /// `domain` as a host name in lowercase A-labels (``IDNA``), or nil when it is none: how
    /// account addresses and pass-type links name domains, as the trust rules compare them.
    public static func asciiHostName(_ domain: String) -> String? {
        guard let ascii = IDNA.asciiDomain(domain), isHostName(ascii) else { return nil }
        return ascii
    }

    /// Letters, digits and hyphens in non-empty dot-separated labels (RFC 5321 §4.1.2), with the
    /// underscores some signers use; A-labels (`xn--…`) are such names too, so a name is
    /// checked in its ASCII form (``IDNA``).
    static func isHostName(_ name: String) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2
            && labels.allSatisfy { label in
                !label.isEmpty
                    && label.utf8.allSatisfy { c in
                        (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x5F
                    }
            }
    }

    /// The verdict on a message: the From rules, then the first passing, aligned signature
    /// whose signed view holds (``SignedView/read(_:signature:wholeMessage:)``), then the
    /// allowed domains and the recipient. `wholeMessage` is false for a large message analysed
    /// from a copy without its attachments.
    /// `from` is `message.from`, when the caller has it already.
    /// `arc` is the message's ARC chain, validated when ``trustedARCSealers`` is set; it is
    /// read only when no signature of the message vouches.
    public func decide(
        _ message: Message, from: [MailboxAddress]? = nil, signatures: [DKIMVerification],
        wholeMessage: Bool = true, arc: ARCValidation? = nil
    ) -> TrustOutcome {
        let from = from ?? message.from
        var fromDomains = from.map(\.domain)
        let fromFields = message.header.count("from")
        if fromFields > 1, fromDomains.count < fromFields {
            fromDomains += Array(repeating: fromDomains.first ?? "", count: fromFields - fromDomains.count)
        }
        let messageRefusal = SignedView.messageRefusal(message, recipientBinding: !recipients.isEmpty)
        func view(_ signature: DKIMVerification) -> ViewCheck {
            if let messageRefusal { return .refused(messageRefusal) }
            switch SignedView.read(message, signature: signature, wholeMessage: wholeMessage) {
            case .read(let view): return .read(view)
            case .refused(let refusal): return .refused(refusal)
            }
        }
        return decide(
            signatures: signatures, fromDomains: fromDomains, recipients: { message.addresses("to") + message.addresses("cc") },
            arc: arc, view: view)
    }

    /// The verdict from the signatures and From domains alone, without the message's structure
    /// (each passing signature is taken as reading the message as it is).
    public func decide(signatures: [DKIMVerification], fromDomains: [String]) -> TrustDecision {
        decide(signatures: signatures, fromDomains: fromDomains, recipients: { [] }, arc: nil, view: { _ in .signatureAlone }).decision
    }

    private func decide(
        signatures: [DKIMVerification], fromDomains: [String], recipients: () -> [MailboxAddress],
        arc: ARCValidation?, view: (DKIMVerification) -> ViewCheck
    ) -> TrustOutcome {
        var overrides: [TrustOverride] = []
        if allowAnyDomain { overrides.append(.allowAnyDomain) }
        if allowUnverified { overrides.append(.allowUnverified) }

        // RFC 6376 §8.6 / RFC 7489 §6.6.1: a message with several From fields or addresses is
        // ambiguous about who sent it; nothing vouches for it.
        guard fromDomains.count == 1, let fromDomain = fromDomains.first, !fromDomain.isEmpty else {
            let refusal: TrustRefusal = fromDomains.count > 1 ? .multipleFrom(count: fromDomains.count) : .noFrom
            return TrustOutcome(
                decision: TrustDecision(trusted: false, vouchingDomain: nil, fromDomain: fromDomains.first, refusals: [refusal], overrides: overrides)
            )
        }

        var refusals: [TrustRefusal] = []
        var vouching: SignedView?
        var vouchingDomain: String?
        if signatures.isEmpty { refusals.append(.noSignature) }
        for signature in signatures {
            switch dkimRefusal(signature, fromDomain: fromDomain) {
            case .some(let refusal):
                refusals.append(refusal)
                continue
            case .none:
                break
            }
            switch view(signature) {
            case .signatureAlone:
                // Deciding without the message: the signature stands for itself.
                vouchingDomain = signature.domain
            case .refused(let refusal):
                refusals.append(refusal)
                continue
            case .read(let signed):
                if let problem = recipientRefusal(signed) {
                    refusals.append(problem)
                    continue
                }
                vouching = signed
                vouchingDomain = signature.domain
            }
            break
        }
        var path = TrustPath.dkim
        // The weaker ARC path, only when no signature of the message vouches.
        if vouchingDomain == nil, let arc {
            switch arcVouch(arc, fromDomain: fromDomain) {
            case .none: break
            case .refused(let refusal): refusals.append(refusal)
            case .vouched(let domain, let selector, let sealer, let instance, let messageSignature):
                // The sealer's word replaces the original signature's cryptographic result only:
                // its h=, l= and c= still decide what it covered, as on the DKIM path.
                let original = arcOriginalView(arcOriginals(of: signatures, domain: domain, selector: selector), domain: domain, view: view)
                switch original.and(view(messageSignature)) {
                case .refused(let refusal):
                    refusals.append(refusal)
                case .read(let signed):
                    if let problem = recipientRefusal(signed) {
                        refusals.append(problem)
                    } else {
                        vouching = signed
                        vouchingDomain = domain
                        path = .arc(sealer: sealer, instance: instance)
                    }
                case .signatureAlone:
                    vouchingDomain = domain
                    path = .arc(sealer: sealer, instance: instance)
                }
            }
        }
        if vouchingDomain == nil, !allowUnverified {
            return TrustOutcome(
                decision: TrustDecision(trusted: false, vouchingDomain: nil, fromDomain: fromDomain, refusals: refusals, overrides: overrides))
        }
        if !allowAnyDomain, !isAllowed(domain: fromDomain) {
            return TrustOutcome(
                decision: TrustDecision(
                    trusted: false, vouchingDomain: vouchingDomain, fromDomain: fromDomain,
                    refusals: [.domainNotAllowed(fromDomain)] + (vouchingDomain == nil ? refusals : []), overrides: overrides,
                    path: path),
                // The view a vouching signature reads, for a genuine sender not chosen yet
                // (TrustDecision.pendingSenderDomain): what waits is what trust would take.
                signedView: vouching)
        }
        if let vouchingDomain {
            return TrustOutcome(
                decision: TrustDecision(
                    trusted: true, vouchingDomain: vouchingDomain, fromDomain: fromDomain, refusals: [],
                    overrides: overrides, recipient: recipientCheck(vouching?.recipients ?? []), path: path), signedView: vouching)
        }
        // --allow-unverified: trusted without a signature, the ordinary view read, loudly.
        return TrustOutcome(
            decision: TrustDecision(
                trusted: true, vouchingDomain: nil, fromDomain: fromDomain, refusals: refusals,
                overrides: overrides, recipient: recipientCheck(recipients())))
    }

    /// The original signatures' view for the ARC path: each DKIM-Signature of the vouched
    /// domain must allow what the sealer vouches for (an attacker may add a field of that domain
    /// beside the genuine one, and the sealer's result does not say which one passed), and the
    /// first one's view is read. Refused when there is none.
    private func arcOriginalView(
        _ originals: [DKIMVerification], domain: String, view: (DKIMVerification) -> ViewCheck
    ) -> ViewCheck {
        guard !originals.isEmpty else { return .refused(.arcOriginalNotFound(domain: domain)) }
        var first: ViewCheck?
        for original in originals {
            if let refusal = arcOriginalRefusal(original, domain: domain) { return .refused(refusal) }
            let check = view(original)
            if case .refused = check { return check }
            if first == nil { first = check }
        }
        return first ?? .refused(.arcOriginalNotFound(domain: domain))
    }

    /// What a signature's view of the message allows.
    enum ViewCheck {
        case read(SignedView)
        case refused(TrustRefusal)
        /// No message to read: the signature is judged by itself.
        case signatureAlone

        /// Both views must hold: the first refusal, else this view's reading, else the other's.
        func and(_ other: @autoclosure () -> ViewCheck) -> ViewCheck {
            if case .refused = self { return self }
            let second = other()
            if case .refused = second { return second }
            if case .read = self { return self }
            return second
        }
    }

    /// Why one signature cannot vouch for the From domain by itself, or nil when it can.
    func dkimRefusal(_ signature: DKIMVerification, fromDomain: String) -> TrustRefusal? {
        guard signature.result == .pass else { return .signatureNotValid(domain: signature.domain, result: signature.result) }
        if !isAligned(signingDomain: signature.domain, fromDomain: fromDomain) {
            return .notAligned(signingDomain: signature.domain, fromDomain: fromDomain)
        }
        if signature.testing { return .testingKey(domain: signature.domain) }
        // RFC 6376 §8.2: content after l= is not covered by the signature.
        if !signature.coversWholeBody { return .partialBody(domain: signature.domain, signedLength: signature.bodyLength ?? 0) }
        return nil
    }

    /// The ORGANIZER rule for an event of a calendar object in a trusted message: the event has
    /// one ORGANIZER whose `mailto:` URI names exactly one address (`notOneAddress` says why
    /// not, RFC 5545 §3.6.1, RFC 6068 §2), and that address (`organizer`, nil when the
    /// ORGANIZER is no `mailto:` URI) has a domain aligned with the From domain as a DKIM `d=`
    /// must be (``isAligned(signingDomain:fromDomain:)``). Nil when it does.
    public func organizerRefusal(
        organizer: String?, organizerURI: String, notOneAddress: OrganizerAddressReason? = nil, fromDomain: String
    ) -> TrustRefusal? {
        if let notOneAddress { return .organizerNotOneAddress(organizer: organizerURI, reason: notOneAddress) }
        guard let organizer, let at = organizer.lastIndex(of: "@") else {
            return .organizerNotAligned(organizer: organizerURI, fromDomain: fromDomain)
        }
        let domain = String(organizer[organizer.index(after: at)...])
        return isAligned(signingDomain: domain, fromDomain: fromDomain) ? nil : .organizerNotAligned(organizer: organizer, fromDomain: fromDomain)
    }

    /// With `--me`, a signed To or Cc must name one of the addresses.
    func recipientRefusal(_ view: SignedView) -> TrustRefusal? {
        guard !recipients.isEmpty else { return nil }
        if case .matched = recipientCheck(view.recipients) { return nil }
        return view.hasUnsignedRecipients ? .recipientNotSigned : .recipientNotListed
    }

    /// Which configured recipient the addresses name, if recipients are configured.
    func recipientCheck(_ addresses: @autoclosure () -> [MailboxAddress]) -> RecipientCheck {
        guard !recipients.isEmpty else { return .notChecked }
        for address in addresses() {
            let full = address.address.lowercased()
            let domain = address.domain.lowercased()
            if let me = recipients.first(where: { $0.hasPrefix("@") ? String($0.dropFirst()) == domain : $0 == full }) {
                return .matched(me)
            }
            // RFC 5233: `jane+trips@` is Jane's mailbox, which the site delivers to her.
            if let base = recipientDelimiter.base(of: full), let me = recipients.first(where: { $0 == base }) {
                return .matched(me)
            }
        }
        return .notMatched
    }
}
