import ReservoirBase
public import Trust
import WalletPass

/// A group of settings a message's outcome can depend on (``ScanOutcome/dependencies``).
public enum DecisionSetting: String, Sendable, Hashable, CaseIterable {
    /// `--allow-domain`, `--allowed-domains` (the domains read), `--allow-any-domain`.
    case domains
    /// `--allow-unverified`.
    case unverified
    /// `--me`.
    case recipients
    /// What shows a forward is the user's: `--me`, `--trust-authserv-id` and, with it, the
    /// filter's own `--authserv-id`.
    case forwarding
    /// `--trust-arc-sealer`.
    case arc
    /// `--pass-ca` (the certificates the files hold) and `--allow-pass-type` (with its
    /// `=DOMAIN` links).
    case passes
    /// `--include-past`.
    case past
}

/// The settings a pipeline decides with, as fingerprints: equal fingerprints of the settings
/// an outcome depends on mean reading the message again would come to the same.
///
/// A fingerprint is FNV-1a over the settings' values in a canonical order (lists sorted, the
/// allowed domains lowercased as the policy holds them). It guards against a person's own
/// settings changing, not against an adversary, who controls no setting; a collision would
/// only leave one message unread until `--rescan`.
public struct DecisionSettings: Sendable {
    /// Each group's canonical text.
    let values: [DecisionSetting: String]

    public init(policy: TrustPolicy, includePast: Bool) {
        func list(_ values: [String]) -> String { Set(values).sorted().joined(separator: "\n") }
        var values: [DecisionSetting: String] = [:]
        values[.domains] = (policy.allowAnyDomain ? "any\n" : "") + list(policy.allowedDomains)
        values[.unverified] = policy.allowUnverified ? "unverified" : ""
        values[.recipients] = list(policy.recipients)
        var forwarding = list(policy.recipients)
        // The filter's own authserv-id matters only beside a trusted one (TrustPolicy.forwarder).
        if let trusted = policy.trustedAuthservID, !trusted.isEmpty {
            forwarding += "\ntrust:" + trusted + "\nown:" + (policy.ownAuthservID ?? "")
        }
        values[.forwarding] = forwarding
        values[.arc] = list(policy.trustedARCSealers)
        // The anchors by what the files hold: a file replaced under the same name counts.
        let anchors = policy.passAnchors.paths.map { path in
            (try? FileBytes.read(path, limit: PassTrustAnchors.maxFileBytes)).map { Self.hash($0) } ?? "unreadable:" + path
        }
        values[.passes] = list(policy.allowedPassTypes) + "\nca:" + list(anchors)
        values[.past] = includePast ? "include" : ""
        self.values = values
    }

    /// The fingerprint of the groups `settings`: empty for none, else 16 hexadecimal digits.
    public func fingerprint(of settings: Set<DecisionSetting>) -> String {
        guard !settings.isEmpty else { return "" }
        var text: [UInt8] = []
        for setting in DecisionSetting.allCases where settings.contains(setting) {
            text += Array("[\(setting.rawValue)]\n".utf8) + Array((values[setting] ?? "").utf8) + [0x0A]
        }
        return Self.hash(text)
    }

    /// The fingerprint an outcome is recorded with.
    public func fingerprint(for outcome: ScanOutcome) -> String { fingerprint(of: outcome.dependencies) }

    /// FNV-1a, 64 bits (the FNV specification's offset basis and prime), as 16 hex digits.
    static func hash(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
