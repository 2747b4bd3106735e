public import EventStore

/// Which unchanged files an incremental scan reads again: those whose recorded outcome
/// depended on a setting that has changed since (``ScanOutcome/dependencies``), and those an
/// older reservoir recorded without their outcome. Each distinct outcome's fingerprint is
/// computed once, so a scan of an unchanged Maildir still costs a dictionary lookup per file.
public struct RescanDecisions {
    public enum Decision: Sendable, Equatable {
        /// Reading it again would come to the same: not read.
        case skip
        /// A setting its outcome depended on changed: read again.
        case settingsChanged
        /// Recorded without its outcome and settings: read again, once.
        case notRecorded
    }

    public let settings: DecisionSettings
    /// The fingerprint under ``settings`` of each recorded outcome met so far.
    private var current: [String: String] = [:]

    public init(settings: DecisionSettings) {
        self.settings = settings
    }

    public mutating func decide(_ file: ScannedFile) -> Decision {
        guard let outcome = file.outcome, let recorded = file.settings else { return .notRecorded }
        return fingerprint(recorded: outcome) == recorded ? .skip : .settingsChanged
    }

    /// The fingerprint a file with `outcome` is recorded with now.
    public mutating func fingerprint(for outcome: ScanOutcome) -> String {
        fingerprint(recorded: outcome.text)
    }

    private mutating func fingerprint(recorded text: String) -> String {
        if let known = current[text] { return known }
        let made = settings.fingerprint(for: ScanOutcome(recorded: text))
        current[text] = made
        return made
    }
}
