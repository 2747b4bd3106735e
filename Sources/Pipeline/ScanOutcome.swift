import Reservations
public import Trust

/// What reading one message came to, as far as the settings it was read under could change it:
/// what an incremental scan records beside each file, so that a change of the trust settings
/// reads again exactly the messages whose outcome that change could alter
/// (``dependencies``), and no others.
///
/// Tightening a setting never undoes what a message stored (the store keeps what trusted mail
/// created), so what a trusted reservation depends on is only what decides *where* it is
/// stored: a pass's owner (`--allow-pass-type TYPE=DOMAIN`). A refusal depends on the settings
/// its rule reads; a message without reservations depends on nothing.
public struct ScanOutcome: Sendable, Equatable {
    public enum Fact: Sendable, Hashable {
        /// A reservation was trusted.
        case trusted
        /// The message carries a Wallet pass: its verdict, its dates (a year only a verified
        /// signing time gives) and its owner follow the pass settings.
        case pass
        /// Reservations were left out because they had ended (`--include-past` keeps them).
        case ended
        /// A reservation was refused with this code (the message's own, a forwarded one's, a
        /// pass's).
        case refused(TrustRefusal.Code)
        /// A reservation was refused with no code recorded, or a word this build does not know:
        /// it depends on every setting.
        case unknown(String)

        /// The word the store records.
        public var word: String {
            switch self {
            case .trusted: "trusted"
            case .pass: "pass"
            case .ended: "ended"
            case .refused(let code): "untrusted-" + code.rawValue
            case .unknown(let word): word
            }
        }

        init(word: Substring) {
            switch word {
            case "trusted": self = .trusted
            case "pass": self = .pass
            case "ended": self = .ended
            default:
                if word.hasPrefix("untrusted-"), let code = TrustRefusal.Code(rawValue: String(word.dropFirst("untrusted-".count))) {
                    self = .refused(code)
                } else {
                    self = .unknown(String(word))
                }
            }
        }

        /// The settings that could change this fact.
        var dependencies: Set<DecisionSetting> {
            switch self {
            case .trusted: []
            case .pass: [.passes]
            case .ended: [.past]
            case .refused(let code): Self.dependencies(of: code)
            case .unknown: Set(DecisionSetting.allCases)
            }
        }

        /// The settings a refusal's rule reads (docs/SECURITY.md). None for the From rules and
        /// an ORGANIZER's alignment (the public suffix list is not a setting); `--pass-ca` and
        /// `--allow-pass-type` for a pass; `--me` and the user's verifier for a forward. A
        /// signature that does not vouch by itself can still be outweighed by
        /// `--allow-unverified` or an ARC sealer; what the signed view refuses depends on `--me`
        /// too (a repeated To or Cc refuses only with it), as the recipient rules do; the
        /// allowed domains decide `domain-not-allowed`, after everything that decides whether
        /// anything vouched.
        static func dependencies(of code: TrustRefusal.Code) -> Set<DecisionSetting> {
            switch code {
            case .noFrom, .multipleFrom, .organizerNotAligned, .organizerNotOneAddress, .pageNotHTTPS, .documentNoProof:
                return []
            case .passUnreadable, .passNoManifest, .passManifestMismatch, .passNoSignature, .passSignatureInvalid, .passNoCA,
                .passCAUnreadable, .passChainNotTrusted, .passCertificateNotValid, .passSigningTimeInFuture, .passWeakKey,
                .passSignerUnnamed, .passIdentityMismatch, .passTypeNotAllowed, .railTicketNotVerified, .railTicketSpecimen,
                .railKeyNotValid, .railKeyNotForOwner:
                return [.passes]
            case .documentNotAddressed:
                return [.passes, .recipients, .forwarding, .domains, .unverified, .arc]
            case .forwardNotFromMe, .forwarderNotVerified:
                return [.forwarding]
            case .noSignature, .signatureNotValid, .notAligned, .testingKey, .partialBody:
                return [.unverified, .arc]
            case .headerLimit, .duplicateField, .unsignedStructure, .whitespaceInBoundary, .structureNotVerifiable,
                .recipientNotSigned, .recipientNotListed, .arcNotValid, .arcSealerNotTrusted, .arcNoAlignedPass, .arcOriginalNotFound:
                return [.unverified, .arc, .recipients]
            case .domainNotAllowed:
                return [.domains, .unverified, .arc, .recipients]
            }
        }
    }

    public private(set) var facts: Set<Fact>

    public init(facts: Set<Fact>) { self.facts = facts }

    /// The outcome of a report: its reservations' verdicts, its passes, what ended, and the same
    /// of every message it forwards.
    public init(_ report: MessageReport) {
        var facts: Set<Fact> = []
        Self.collect(report, into: &facts)
        self.facts = facts
    }

    private static func collect(_ report: MessageReport, into facts: inout Set<Fact>) {
        if report.walletPasses > 0 { facts.insert(.pass) }
        if report.diagnostics.contains(where: { $0.code == .reservations(.ended) }) { facts.insert(.ended) }
        for item in report.items {
            if report.isTrusted(item) {
                facts.insert(.trusted)
                continue
            }
            switch item.source {
            case .document(let decision):
                facts.insert(decision.refusal.map { .refused($0.code) } ?? .unknown("untrusted"))
            case .markup:
                // Refused on its own in a trusted message (an ORGANIZER), or with the message.
                let refusals = report.trust.trusted ? [item.refusal].compactMap { $0 } : report.trust.refusals
                if refusals.isEmpty { facts.insert(.unknown("untrusted")) }
                for refusal in refusals { facts.insert(.refused(refusal.code)) }
            }
        }
        for forwarded in report.forwarded { collect(forwarded.report, into: &facts) }
    }

    /// The recorded words (``text``); nil, from a store an older reservoir wrote, is unknown.
    public init(recorded text: String?) {
        guard let text else {
            facts = [.unknown("")]
            return
        }
        facts = Set(text.split(separator: " ").filter { $0 != "none" }.map(Fact.init(word:)))
    }

    /// `none`, or the facts' words in order, separated by spaces.
    public var text: String {
        facts.isEmpty ? "none" : facts.map(\.word).sorted().joined(separator: " ")
    }

    /// The settings whose change could change this outcome.
    public var dependencies: Set<DecisionSetting> {
        facts.reduce(into: []) { $0.formUnion($1.dependencies) }
    }
}
