import DKIM
import EventStore
import Glibc
import Pipeline
import Trust

/// What the milter did with one message: the values of its log line (``line``) and of its
/// metrics. Only codes, counts, domains and the site's own account addresses: never the
/// message's content, a token or a password.
package struct MilterOutcome: Sendable, Equatable {
    /// The MTA's queue id (the `{i}` macro, which Postfix sends at the end of the message by
    /// default, `milter_end_of_data_macros`); nil when the MTA sent none.
    package var queueID: String?
    /// The accounts the message was filed under, as the envelope named them.
    package var accounts: [String] = []
    /// The DKIM result (RFC 8601 §2.7.1) of the signature that vouched, else of the first
    /// signature; `none` without one.
    package var dkim = DKIMResult.none.rawValue
    /// That signature's `d=`.
    package var dkimDomain: String?
    /// Reservations in the message, as the site reads it.
    package var found = 0
    /// Of those, the ones the site's policy trusts (what the message's fields say).
    package var trusted = 0
    /// Of those, the ones that wait for the person's choice of their sender.
    package var pending = 0
    /// Changes made in the store, over all the accounts: events created, updated or cancelled.
    package var stored = 0
    /// The stable refusal codes of the site's judgement and of each account's, each once, sorted.
    package var refusals: [String] = []
    /// Accounts whose message went to the retry spool (`reservoir retry --account`).
    package var retried: [String] = []
    /// Accounts whose recording failed and whose message could not be kept for retry.
    package var lost: [String] = []
    /// The time each account's recording took (opening its store, writing), in seconds.
    package var storeSeconds: [Double] = []
    /// Why the message was not analysed (`too-large`, `spool-failed`, `configuration`), or nil.
    package var unanalysed: String?
    /// An analysis that failed (the message went on without results), or nil.
    package var failure: String?
    /// Whether the reply went before the analysis ended (the time budget ran out).
    package var pastBudget = false
    /// From the end of the message to the end of its recording.
    package var milliseconds = 0

    package init() {}

    /// Accounts named in a line at most; more are counted (`+N`).
    package static let accountsInLine = 10

    /// The message's outcome, one of a bounded set (the `outcome` label of
    /// `reservoir_messages_total`).
    package enum Kind: String, Sendable, CaseIterable {
        /// Something was written in the store.
        case stored
        /// Reservations that wait for the person's choice of their sender.
        case pending
        /// Trusted reservations the store already held as they are (the same message again).
        case unchanged
        /// Reservations, none of them trusted or pending.
        case untrusted
        /// No reservation in the message.
        case noReservations = "no-reservations"
        /// A recording failed and the message waits in the retry spool.
        case retry
        /// A recording failed and nothing could keep it.
        case lost
        /// Passed without analysis (too large, no spool file, configuration).
        case unanalysed
        /// The analysis failed.
        case error
    }

    package var kind: Kind {
        if !lost.isEmpty { return .lost }
        if failure != nil { return .error }
        if !retried.isEmpty { return .retry }
        if unanalysed != nil { return .unanalysed }
        if stored > 0 { return .stored }
        if pending > 0 { return .pending }
        if trusted > 0 { return .unchanged }
        return found == 0 ? .noReservations : .untrusted
    }

    /// The log line, fields in a fixed order, `-` for none, as OpenDKIM's and rspamd's one line
    /// per message:
    /// `queue=4XyZ1 accounts=jane@example.org dkim=pass domain=airline.example found=1 trusted=1 stored=1 refusals=- retry=- outcome=stored ms=12`.
    package var line: String {
        var shown = accounts.prefix(Self.accountsInLine).joined(separator: ",")
        if accounts.count > Self.accountsInLine { shown += ",+\(accounts.count - Self.accountsInLine)" }
        var fields = [
            "queue=\(Self.token(queueID))",
            "accounts=\(Self.token(shown.isEmpty ? nil : shown))",
            "dkim=\(Self.token(dkim))",
            "domain=\(Self.token(dkimDomain))",
            "found=\(found)", "trusted=\(trusted)", "stored=\(stored)",
            "refusals=\(Self.token(refusals.isEmpty ? nil : refusals.joined(separator: ",")))",
            "retry=\(Self.token(retried.isEmpty ? nil : retried.joined(separator: ",")))",
            "outcome=\(kind.rawValue)",
        ]
        if pending > 0 { fields.insert("pending=\(pending)", at: 7) }
        if let unanalysed { fields.append("unanalysed=\(unanalysed)") }
        if !lost.isEmpty { fields.append("lost=\(lost.joined(separator: ","))") }
        if pastBudget { fields.append("past-budget=yes") }
        fields.append("ms=\(milliseconds)")
        return fields.joined(separator: " ")
    }

    /// A value as one token of the line: `-` for none; bytes outside visible ASCII, and `=`,
    /// become `?` (a queue id or a domain is ASCII; an MTA's macro is not to be trusted).
    static func token(_ value: String?) -> String {
        guard let value, !value.isEmpty else { return "-" }
        return String(value.unicodeScalars.map { $0.value > 0x20 && $0.value < 0x7F && $0 != "=" ? Character($0) : "?" }.prefix(256))
    }

    /// The site's reading of the message: reservations, DKIM, refusals.
    mutating func read(_ report: MessageReport) {
        found = report.items.count
        trusted = report.items.filter(report.isTrusted).count
        pending = report.items.filter(report.waitsAsPending).count
        let vouching = report.signatures.first { $0.domain == report.trust.vouchingDomain && $0.result == .pass }
        if let signature = vouching ?? report.signatures.first {
            dkim = signature.result.rawValue
            dkimDomain = signature.domain
        }
        addRefusals(of: report)
    }

    /// One account's recording of `report`.
    mutating func recorded(_ report: MessageReport, seconds: Double?) {
        stored +=
            report.items.filter { item in
                guard let change = item.change else { return false }
                return change.changeKind != .unchanged && change.changeKind != .olderThanStored
            }.count
        if let seconds { storeSeconds.append(seconds) }
        addRefusals(of: report)
    }

    private mutating func addRefusals(of report: MessageReport) {
        guard report.hasReservations else { return }
        var codes = Set(refusals)
        if !report.trust.trusted { codes.formUnion(report.trust.refusals.map(\.code.rawValue)) }
        for item in report.items where !report.isTrusted(item) {
            if let refusal = item.refusal { codes.insert(refusal.code.rawValue) }
        }
        refusals = codes.sorted()
    }
}

extension MilterOutcome {
    /// CLOCK_MONOTONIC in nanoseconds: durations that a change of the wall clock does not bend.
    package static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
