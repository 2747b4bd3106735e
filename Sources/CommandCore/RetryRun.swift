package import EventStore
import Glibc
import Mailbox
package import Pipeline

/// Why a message's reservations were not recorded for a reason that passes, or nil: the store
/// failed (unusable, locked, a full disk), or a DKIM key lookup met a DNS temporary failure
/// while the message carries reservations that trust would otherwise decide on.
package enum TransientFailure {
    package static func reason(_ report: MessageReport, storeProblem: String? = nil) -> String? {
        if let storeProblem { return storeProblem }
        if let failure = report.diagnostics.first(where: { $0.stage == .store }) {
            return "the event store failed: \(failure.message)"
        }
        if report.untrustedForNow {
            return "a DKIM key lookup failed for now (dkim=temperror)"
        }
        return nil
    }
}

/// What `reservoir retry` (and every `scan`, first) did with one record.
package struct RetryOutcome: Sendable {
    package enum Kind: String, Sendable {
        /// The store applied its reservations; the record is removed.
        case applied
        /// It failed again for a reason that passes; the record stays for the next run.
        case kept
        /// It cannot succeed (the file is gone, the message is not trusted): moved to `failed/`.
        case failed
    }

    package var record: String
    /// Whose record it was.
    package var account: Account = .implicit
    package var kind: Kind
    package var reason: String?
    /// Events created, moved or cancelled.
    package var changed: Int
}

/// Processes a spool's pending records, each exactly once: claimed by rename, removed once the
/// store applied it.
package struct RetryRun {
    package let spool: RetrySpool
    package let pipeline: ReservationPipeline

    package init(spool: RetrySpool, pipeline: ReservationPipeline) {
        self.spool = spool
        self.pipeline = pipeline
    }

    package func run() -> [RetryOutcome] {
        spool.reclaimAbandoned()
        var outcomes: [RetryOutcome] = []
        for name in spool.pending() {
            guard let claimed = spool.claim(name) else { continue }
            var outcome = process(name, claimed: claimed)
            outcome.account = pipeline.store?.account ?? .implicit
            outcomes.append(outcome)
        }
        return outcomes
    }

    private func process(_ name: String, claimed: String) -> RetryOutcome {
        func failed(_ reason: String) -> RetryOutcome {
            spool.fail(claimed, name: name, reason: reason)
            return RetryOutcome(record: name, kind: .failed, reason: reason, changed: 0)
        }
        var path = claimed
        var origin = MessageOrigin(path: nil)
        if name.hasSuffix(".path") {
            guard let text = FileText.read(claimed) else { return failed("the record cannot be read") }
            let named = String(text.split(separator: "\n", omittingEmptySubsequences: true).first ?? "")
            guard let found = Self.locate(named) else { return failed("\(named): the message file no longer exists") }
            path = found
            origin = MessageOrigin(path: found)
        }
        // The spooled copy (or the message file) dates the message's arrival: a pending sender's
        // reservation waits from then (``MessageOrigin/deliveredAt``).
        origin.stamp = FileStamp.of(path)
        let raw: RawMessage
        do {
            raw = try MessageSource.file(path)
        } catch {
            return failed("\(path): \(error)")
        }
        var report = pipeline.analyze(RawMessage(bytes: raw.bytes, origin: origin, file: raw.file))
        pipeline.record(&report)
        if let transient = TransientFailure.reason(report) {
            spool.release(claimed, name: name)
            return RetryOutcome(record: name, kind: .kept, reason: transient, changed: 0)
        }
        // A genuine sender not chosen yet: the message now waits as pending, which is all a
        // record of it can come to until `reservoir allow`.
        if !report.hasTrustedReservations, let pending = report.diagnostics.first(where: { $0.code == .senderPending }) {
            unlink(claimed)
            return RetryOutcome(record: name, kind: .applied, reason: pending.message, changed: 0)
        }
        guard report.hasTrustedReservations else {
            let why =
                report.hasReservations
                ? "not trusted: \(report.trust.reason)"
                : (report.diagnostics.last.map { "no reservation to record: \($0.message)" } ?? "no reservation to record")
            return failed(why)
        }
        unlink(claimed)
        return RetryOutcome(record: name, kind: .applied, reason: nil, changed: CalendarPusher.changedKeys(report).count)
    }

    /// `path`, or, for a Maildir message that moved from `new/` to `cur/` or had its flags
    /// changed since, where it is now; nil when it is gone.
    static func locate(_ path: String) -> String? {
        guard access(path, F_OK) != 0 else { return path }
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let folder = path[..<slash]
        let name = path[path.index(after: slash)...]
        guard folder.hasSuffix("/new") || folder.hasSuffix("/cur") else { return nil }
        let maildir = folder.dropLast(4)
        let unique = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? String(name)
        for sub in ["/cur", "/new"] {
            let dir = String(maildir) + sub
            if let match = RetrySpool.names(in: dir).first(where: { $0 == unique || $0.hasPrefix(unique + ":") }) {
                return dir + "/" + match
            }
        }
        return nil
    }
}

extension RawMessage {
    init(bytes: [UInt8], origin: MessageOrigin, file: MessageFile?) {
        if let file { self.init(file: file, origin: origin) } else { self.init(bytes: bytes, origin: origin) }
    }
}
