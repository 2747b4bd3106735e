public import ARC
public import DKIM
public import WalletPass

/// The policy's verdict on one message's markup: trusted or not, who vouched, and every reason
/// that stood against it. Words for people belong to the renderers, not here.
public struct TrustDecision: Sendable {
    public var trusted: Bool
    /// The DKIM `d=` that vouched for the message, if any.
    public var vouchingDomain: String?
    public var fromDomain: String?
    /// Why the markup is not trusted, most telling first; under `--allow-unverified`, why it
    /// would not have been. Empty for a plain trusted message.
    public var refusals: [TrustRefusal]
    /// The testing switches in force, shown loudly.
    public var overrides: [TrustOverride]
    /// Whether the message was bound to its recipient (`--me`).
    public var recipient: RecipientCheck
    /// How the vouching domain's pass was learned: the message's own DKIM signature, or the
    /// weaker ARC path (`--trust-arc-sealer`).
    public var path: TrustPath

    public init(
        trusted: Bool, vouchingDomain: String?, fromDomain: String?, refusals: [TrustRefusal],
        overrides: [TrustOverride], recipient: RecipientCheck = .notChecked, path: TrustPath = .dkim
    ) {
        self.path = path
        self.trusted = trusted
        self.vouchingDomain = vouchingDomain
        self.fromDomain = fromDomain
        self.refusals = refusals
        self.overrides = overrides
        self.recipient = recipient
    }

    /// The first refusal, the one a one-line summary names.
    public var refusal: TrustRefusal? { refusals.first }
}

/// The decision on a message and the view trusted markup is read from. The view holds the
/// message: keep the decision, which is small, and let the view go once the markup is read.
public struct TrustOutcome: Sendable {
    public var decision: TrustDecision
    /// The message as the vouching signature reads it. Nil when nothing vouched (untrusted, or
    /// trusted only by `--allow-unverified`).
    public var signedView: SignedView?

    public init(decision: TrustDecision, signedView: SignedView? = nil) {
        self.decision = decision
        self.signedView = signedView
    }
}

/// Which way the message's evidence came: its own DKIM signature, an ARC sealer's record, or a
/// page fetched over TLS. It is said even where nothing vouched (a page fetched over plain
/// http); what vouched, when something did, is ``TrustDecision/proof``.
public enum TrustPath: Sendable, Equatable {
    /// A DKIM signature of the message, verified here.
    case dkim
    /// The DKIM result recorded in the ARC-Authentication-Results of instance `instance`,
    /// sealed by `sealer`, one of `--trust-arc-sealer` (RFC 8617): the sealer's word, not a
    /// signature verified here.
    case arc(sealer: String, instance: Int)
    /// A page fetched over verified TLS (`reservoir add URL`) from `host`: the certificate's
    /// name vouches for the host (RFC 9525 §6), the host's registered domain owns the booking.
    case page(url: String, host: String)
}

/// A testing switch that relaxes the policy.
public enum TrustOverride: String, Sendable, Equatable {
    /// Accept any From domain.
    case allowAnyDomain = "allow-any-domain"
    /// Accept markup without a valid aligned DKIM signature.
    case allowUnverified = "allow-unverified"
}

/// The recipient binding of a message (`--me`).
public enum RecipientCheck: Sendable, Equatable {
    /// No `--me` address was configured: the message may have been meant for anyone.
    case notChecked
    /// A signed To or Cc names this configured address (or `@domain`).
    case matched(String)
    /// `--me` was configured and no signed To or Cc names it.
    case notMatched
}

/// Why markup was not trusted. Each case is one rule of docs/SECURITY.md; ``code`` is its
/// stable name for programs.
public enum TrustRefusal: Sendable, Equatable {
    /// The message has no From address.
    case noFrom
    /// Several From fields or addresses: nothing can vouch for an ambiguous author (RFC 5322
    /// §3.6, RFC 7489 §6.6.1).
    case multipleFrom(count: Int)
    /// No DKIM-Signature field at all.
    case noSignature
    /// A signature that did not pass (`fail`, `permerror`, `temperror`, `policy`, …).
    case signatureNotValid(domain: String, result: DKIMResult)
    /// A valid signature whose `d=` is not aligned with the From domain (RFC 7489 §3.1.1).
    case notAligned(signingDomain: String, fromDomain: String)
    /// A valid signature with a key in testing mode (`t=y`, RFC 6376 §3.6.1).
    case testingKey(domain: String)
    /// A valid signature with `l=` shorter than the body (RFC 6376 §8.2).
    case partialBody(domain: String, signedLength: Int)
    /// More header fields than the reader holds (``MIME/Limits/maxHeaderFields``): fields
    /// past the limit are unseen by the single-From rule and by the header selection.
    case headerLimit
    /// A field that may appear at most once appears more often (RFC 5322 §3.6 for the
    /// origination, destination and identification fields; RFC 2045 for the MIME fields of
    /// any entity). Which instance a reader takes is not decided by the signature.
    case duplicateField(String)
    /// A top-level MIME field (`Content-Type`, `Content-Transfer-Encoding`, `MIME-Version`)
    /// is present but not covered by the signature's `h=`: anyone could have written it, and
    /// it decides how the signed body is read.
    case unsignedStructure(String)
    /// A multipart boundary holds white space while the signature canonicalizes relaxed
    /// (RFC 6376 §3.4.2, §3.4.4): the runs of white space in its delimiter lines are not signed.
    case whitespaceInBoundary
    /// A message too large to hold whose structure reads differently in the signed view; it
    /// would have to be parsed again from its file.
    case structureNotVerifiable
    /// The From domain is not an allowed domain.
    case domainNotAllowed(String)
    /// `--me` is configured and the To or Cc field naming recipients is not signed.
    case recipientNotSigned
    /// `--me` is configured and no signed To or Cc names one of its addresses.
    case recipientNotListed
    /// A Wallet pass whose files, signature or signer do not verify (docs/SECURITY.md, "Wallet passes").
    case passNotVerified(PassVerificationFailure)
    /// A verified Wallet pass whose pass type identifier is not allowed (`--allow-pass-type`).
    case passTypeNotAllowed(String)
    /// An event of a calendar object (RFC 5545) whose ORGANIZER's domain is not aligned with
    /// the From domain (``TrustPolicy/organizerRefusal(organizer:organizerURI:fromDomain:)``): the signer
    /// vouches for the message, not for an invitation it passes on from someone else. The
    /// other events of the message stay trusted.
    case organizerNotAligned(organizer: String, fromDomain: String)
    /// An event of a calendar object whose ORGANIZER does not name exactly one mail address:
    /// two ORGANIZER properties (RFC 5545 §3.6.1 allows one), or a `mailto:` URI naming
    /// several addresses or none, with a fragment, or that does not read (RFC 6068 §2).
    /// Readers would disagree on who organizes the event, so alignment has nothing sure to check.
    case organizerNotOneAddress(organizer: String, reason: OrganizerAddressReason)
    /// A forwarded message whose outer From is not one of the `--me` addresses (or `--me` is
    /// not configured): anyone can forward a genuine confirmation.
    case forwardNotFromMe
    /// A forwarded message whose outer From is one of the `--me` addresses, but neither an
    /// aligned DKIM pass of the outer message nor the user's verifier's
    /// `Authentication-Results` (`--trust-authserv-id`) shows that the user sent it.
    case forwarderNotVerified
    /// `--trust-arc-sealer` is set and the message's ARC chain does not validate (RFC 8617 §5.2).
    case arcNotValid(ARCValidation.Code?)
    /// The ARC chain validates, but no instance is sealed by a trusted sealer, or one sealed
    /// after it is not.
    case arcSealerNotTrusted
    /// The trusted sealer's ARC-Authentication-Results records no `dkim=pass` with a
    /// `header.d` aligned with the From domain.
    case arcNoAlignedPass
    /// The trusted sealer records a `dkim=pass` of `domain`, but the message holds no readable
    /// DKIM-Signature of that domain whose rules (`h=`, `l=`, `c=`) could be applied.
    case arcOriginalNotFound(domain: String)
    /// A page fetched over plain `http://`: anyone on the path could have written it.
    case pageNotHTTPS
    /// A document read from a file with nothing that proves its origin (an `.html` page, an
    /// `.ics` calendar): shown, not stored.
    case documentNoProof
    /// A rail ticket's bar code whose railway signature does not vouch for it: no key list
    /// (`--rail-keys`), no key of that railway and id in it, or a signature that does not verify
    /// (UIC 918.3). `reason` is the rail reader's word: `unsigned`, `unknown-key`, `invalid`.
    case railTicketNotVerified(reason: String)
    /// A rail ticket whose signature verifies but which marks itself a specimen (a sample, not a
    /// journey).
    case railTicketSpecimen
    /// A rail ticket whose signature verifies with a key whose validity (the key list's
    /// `startDate` and `endDate`) does not cover the ticket's signed issuing time, or whose
    /// issuing time is after the clock. `reason` is the rail reader's word
    /// (`issued-after-key`, `issued-before-key`, `issued-in-future`, `no-issuing-time`).
    case railKeyNotValid(reason: String)
    /// A rail ticket whose signature verifies with a key the list allows for other product
    /// owners only (`allowedProductOwnerCodes`); `owner` is the ticket's (empty: none named).
    case railKeyNotForOwner(owner: String)
    /// A document that vouches for itself (a Wallet pass, a rail ticket) in mail that is not
    /// bound to the person while recipient binding is on (`--me`, a site account): neither
    /// trusted mail whose signed To or Cc names them, nor their own verified mail. The
    /// document vouches for the booking, not for whose calendar it belongs in.
    case documentNotAddressed

    /// The refusal's kind without its details: a stable name for programs (JSON, notes, the
    /// attack corpus).
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case noFrom = "no-from"
        case multipleFrom = "multiple-from"
        case noSignature = "no-signature"
        case signatureNotValid = "signature-not-valid"
        case notAligned = "not-aligned"
        case testingKey = "testing-key"
        case partialBody = "partial-signature"
        case headerLimit = "header-limit"
        case duplicateField = "duplicate-field"
        case unsignedStructure = "unsigned-structure"
        case whitespaceInBoundary = "whitespace-in-boundary"
        case structureNotVerifiable = "structure-not-verifiable"
        case domainNotAllowed = "domain-not-allowed"
        case recipientNotSigned = "recipient-not-signed"
        case recipientNotListed = "recipient-not-listed"
        case passUnreadable = "pass-unreadable"
        case passNoManifest = "pass-no-manifest"
        case passManifestMismatch = "pass-manifest-mismatch"
        case passNoSignature = "pass-no-signature"
        case passSignatureInvalid = "pass-signature-invalid"
        case passNoCA = "pass-no-ca"
        case passCAUnreadable = "pass-ca-unreadable"
        case passChainNotTrusted = "pass-chain-not-trusted"
        case passCertificateNotValid = "pass-certificate-not-valid"
        case passSigningTimeInFuture = "pass-signing-time-in-future"
        case passWeakKey = "pass-weak-key"
        case passSignerUnnamed = "pass-signer-unnamed"
        case passIdentityMismatch = "pass-identity-mismatch"
        case passTypeNotAllowed = "pass-type-not-allowed"
        case organizerNotAligned = "organizer-not-aligned"
        case organizerNotOneAddress = "organizer-not-one-address"
        case forwardNotFromMe = "forward-not-from-me"
        case forwarderNotVerified = "forwarder-not-verified"
        case arcNotValid = "arc-not-valid"
        case arcSealerNotTrusted = "arc-sealer-not-trusted"
        case arcNoAlignedPass = "arc-no-aligned-pass"
        case arcOriginalNotFound = "arc-original-signature-missing"
        case pageNotHTTPS = "page-not-https"
        case documentNoProof = "document-no-proof"
        case railTicketNotVerified = "rail-ticket-not-verified"
        case railTicketSpecimen = "rail-ticket-specimen"
        case railKeyNotValid = "rail-key-not-valid"
        case railKeyNotForOwner = "rail-key-not-for-owner"
        case documentNotAddressed = "document-not-addressed"
    }

    public var code: Code {
        switch self {
        case .noFrom: .noFrom
        case .multipleFrom: .multipleFrom
        case .noSignature: .noSignature
        case .signatureNotValid: .signatureNotValid
        case .notAligned: .notAligned
        case .testingKey: .testingKey
        case .partialBody: .partialBody
        case .headerLimit: .headerLimit
        case .duplicateField: .duplicateField
        case .unsignedStructure: .unsignedStructure
        case .whitespaceInBoundary: .whitespaceInBoundary
        case .structureNotVerifiable: .structureNotVerifiable
        case .domainNotAllowed: .domainNotAllowed
        case .recipientNotSigned: .recipientNotSigned
        case .recipientNotListed: .recipientNotListed
        case .passTypeNotAllowed: .passTypeNotAllowed
        case .passNotVerified(let failure):
            switch failure {
            case .unreadable: .passUnreadable
            case .noManifest: .passNoManifest
            case .manifestMismatch: .passManifestMismatch
            case .noSignature: .passNoSignature
            case .signatureInvalid: .passSignatureInvalid
            case .noAnchors: .passNoCA
            case .anchorsUnreadable: .passCAUnreadable
            case .chainNotTrusted: .passChainNotTrusted
            case .certificateNotValidAtTime: .passCertificateNotValid
            case .signingTimeInFuture: .passSigningTimeInFuture
            case .weakKey: .passWeakKey
            case .signerUnnamed: .passSignerUnnamed
            case .identityMismatch: .passIdentityMismatch
            }
        case .organizerNotAligned: .organizerNotAligned
        case .organizerNotOneAddress: .organizerNotOneAddress
        case .forwardNotFromMe: .forwardNotFromMe
        case .forwarderNotVerified: .forwarderNotVerified
        case .arcNotValid: .arcNotValid
        case .arcSealerNotTrusted: .arcSealerNotTrusted
        case .arcNoAlignedPass: .arcNoAlignedPass
        case .arcOriginalNotFound: .arcOriginalNotFound
        case .pageNotHTTPS: .pageNotHTTPS
        case .documentNoProof: .documentNoProof
        case .railTicketNotVerified: .railTicketNotVerified
        case .railTicketSpecimen: .railTicketSpecimen
        case .railKeyNotValid: .railKeyNotValid
        case .railKeyNotForOwner: .railKeyNotForOwner
        case .documentNotAddressed: .documentNotAddressed
        }
    }
}

/// Why an invitation's ORGANIZER names no single mail address
/// (``TrustRefusal/organizerNotOneAddress(organizer:reason:)``).
public enum OrganizerAddressReason: String, Sendable, Equatable, CaseIterable {
    /// More than one ORGANIZER property in the event (RFC 5545 §3.6.1).
    case severalOrganizers = "several-organizers"
    /// `mailto:a@x,b@y`, `mailto:a@x?to=b@y`, or a `cc`/`bcc` header field (RFC 6068 §2).
    case severalAddresses = "several-addresses"
    /// A `mailto:` URI with no address (`mailto:?subject=x`).
    case noAddress = "no-address"
    /// A `mailto:` URI with a fragment (`#…`), to which RFC 6068 gives no meaning: a reader
    /// that keeps it in the address sees another domain after its last `@`.
    case fragment = "fragment"
    /// A `mailto:` URI that does not read: a character no URI holds, bad percent-encoding, or an
    /// address that is not a dot-atom `local@domain`.
    case malformed = "malformed"
}

extension TrustDecision {
    /// The From domain when the only thing standing against the message is that its domain is
    /// not allowed, and a DKIM signature verified here, aligned with From and covering the
    /// whole signed view vouches for it: a genuine sender the person has not chosen yet, whose
    /// reservations may wait as pending (docs/SECURITY.md, "Pending senders"). Nil for every
    /// other refusal, for the ARC path (a sealer's word, not a signature checked here) and
    /// under either testing switch. The domain is given in lowercase A-labels.
    public var pendingSenderDomain: String? {
        guard !trusted, vouchingDomain != nil, path == .dkim, overrides.isEmpty, refusals.count == 1,
            case .domainNotAllowed(let domain) = refusals[0], fromDomain?.lowercased() == domain.lowercased()
        else { return nil }
        // In A-labels, as `reservoir allow` names it and the allowed domains compare (IDNA).
        return IDNA.asciiDomain(domain) ?? domain.lowercased()
    }
}
