import DKIM
import EventStore
public import JSON
import MIME
import Mailbox
import Markup
public import Pipeline
import Reservations
import ReservoirBase
import Trust
import WalletPass

/// Draws the one-glance summary of a message: what, when, where, status, and who vouched for
/// it, for people (`render`) and programs (`json`).
public struct BannerRenderer: Sendable {
    public let style: BannerStyle
    /// Show every diagnostic (MIME repairs, trust reasons), not only those that explain a
    /// reservation (`--explain`).
    public var explain = false

    public init(style: BannerStyle, explain: Bool = false) {
        self.style = style
        self.explain = explain
    }

    /// Width of the label column.
    static let labelWidth = 11

    /// The banner. Every text from the message (or the store, or a file name) enters it through
    /// ``TerminalText``, escaped; only the style's own colour codes reach the terminal raw.
    public func render(_ report: MessageReport) -> String {
        var out = headline(report) + "\n"
        for item in report.items {
            out += reservationLines(item, trusted: report.isTrusted(item), sender: Self.senderChoice(report, item))
        }
        if case .page(let url, _) = report.trust.path {
            // A page has no From nor signature: its address, and whether TLS vouched for it.
            out += line("Page", TerminalText(escaping: url))
        } else if !report.isDocument {
            out += line("From", fromText(report))
            out += line("DKIM", dkimText(report.signatures))
        }
        if report.hasMarkupReservations {
            let verdict =
                report.trust.trusted
                ? style.paint(style.symbol("✔ trusted", "trusted"), .boldGreen) + ": \(report.trust.reason)"
                : style.paint(style.symbol("✘ NOT TRUSTED", "NOT TRUSTED"), .boldRed) + ": \(report.trust.reason)"
            out += line("Trust", verdict)
        }
        if !report.trust.overrides.isEmpty {
            out += line("Testing", style.paint("switches in force: \(report.trust.overrideFlags.joined(separator: ", "))", .boldYellow))
        }
        for diagnostic in report.diagnostics where explain || Self.isWorthShowing(diagnostic) {
            out += line("Note", style.paint("\(diagnostic.code.description): \(diagnostic.message)", .dim))
        }
        out += forwardedLines(report)
        return out.text
    }

    func headline(_ report: MessageReport) -> TerminalText {
        let name = report.origin.path.map(Self.fileName) ?? "standard input"
        var subject: TerminalText =
            report.subject.map { "“\($0)”" } ?? (report.isDocument ? (report.trust.path == .dkim ? "(document)" : "(page)") : "(no subject)")
        // The headline of a trusted message is what its sender signed, or says it is not.
        if report.trust.trusted, report.subjectSigned == false { subject += " (Subject not signed)" }
        let count = report.items.count
        var what = count == 0 ? "no reservation" : count == 1 ? "1 reservation" : "\(count) reservations"
        if !report.forwarded.isEmpty { what += " · \(report.forwarded.count) forwarded" }
        return style.paint(subject, .bold) + "  " + style.paint("\(name) · \(what)", .dim)
    }

    static func recipientText(_ check: RecipientCheck) -> String {
        switch check {
        case .notChecked: "not-checked"
        case .matched(let me): "matched " + me
        case .notMatched: "not-matched"
        }
    }

    /// What became of a markup reservation of a genuine sender not chosen yet: the note the
    /// store's choice left (`sender-pending`, `sender-denied`), with the domain.
    static func senderChoice(_ report: MessageReport, _ item: ReportedReservation) -> ReportDiagnostic? {
        guard item.source == .markup, !report.isTrusted(item), item.refusal == nil else { return nil }
        return report.diagnostics.first { $0.code == .senderPending || $0.code == .senderDenied }
    }

    func reservationLines(_ item: ReportedReservation, trusted: Bool, sender: ReportDiagnostic? = nil) -> TerminalText {
        let r = item.reservation
        let status = statusText(r.status)
        let marker = trusted ? style.symbol("●", "*") : style.symbol("○", "-")
        var title: TerminalText = "\(marker) \(r.category.displayName): " + style.paint("\(r.title)", .bold) + " · \(status)"
        if !r.reservationID.isEmpty { title += " · #\(r.reservationID)" }
        var out: TerminalText = "  \(title)\n"
        if let start = r.start {
            var when = BannerText.time(start)
            if let end = r.end { when += " → " + BannerText.time(end) }
            out += line("When", "\(when)", indent: 4)
        }
        if let location = r.location, !location.isEmpty { out += line("Where", "\(location)", indent: 4) }
        if case .document(let decision) = item.source {
            // A document vouches for itself: its verdict stands beside it, not in the message's.
            let verdict =
                decision.trusted
                ? style.paint(style.symbol("✔ trusted", "trusted"), .boldGreen) + ": \(decision.reason)"
                : style.paint(style.symbol("✘ NOT TRUSTED", "NOT TRUSTED"), .boldRed) + ": \(decision.reason)"
            out += line(decision.kind == .walletPass ? "Pass" : "Ticket", verdict, indent: 4)
        }
        // The booking number is already in the title line.
        for detail in r.details.filter({ $0.value != r.reservationID }).prefix(Self.maxDetails) {
            out += line(detail.label, "\(detail.value)", indent: 4)
        }
        if let change = item.change {
            out += line("Store", "\(BannerText.change(change))", indent: 4)
            for instance in item.instanceChanges {
                out += line("Store", "instance \(instance.stored.event.key.item): \(BannerText.change(instance))", indent: 4)
            }
        } else if let sender, let domain = sender.detail {
            let choice: TerminalText =
                sender.code == .senderPending
                ? "pending: \(domain) is not allowed yet (reservoir allow \(domain), or reservoir deny \(domain))"
                : "not recorded (\(domain) was denied)"
            out += line("Store", choice, indent: 4)
        } else if let refusal = item.refusal {
            out += line("Store", "not recorded (not trusted: \(refusal.sentence))", indent: 4)
        } else if !trusted {
            out += line("Store", "not recorded (not trusted)", indent: 4)
        }
        return out
    }

    /// Details shown per reservation; the rest are in `--json`.
    static let maxDetails = 6

    func statusText(_ status: ReservationStatus) -> TerminalText {
        switch status {
        case .confirmed: style.paint("confirmed", .green)
        case .cancelled: style.paint("CANCELLED", .boldRed)
        case .pending: style.paint("pending", .yellow)
        case .hold: style.paint("on hold", .yellow)
        }
    }

    func fromText(_ report: MessageReport) -> TerminalText {
        if report.from.isEmpty { return "(none)" }
        let text = report.from.map { address in
            if let name = address.displayName, !name.isEmpty { return "\(name) <\(address.address)>" }
            return address.address
        }.joined(separator: ", ")
        return "\(text)"
    }

    func dkimText(_ signatures: [DKIMVerification]) -> TerminalText {
        if signatures.isEmpty { return style.paint("none (the message is not signed)", .yellow) }
        var out: TerminalText = ""
        for (index, s) in signatures.enumerated() {
            let word: TerminalText
            switch s.result {
            case .pass: word = style.paint("pass", .green)
            case .fail, .permerror: word = style.paint("\(s.result.rawValue)", .red)
            default: word = style.paint("\(s.result.rawValue)", .yellow)
            }
            if index > 0 { out += "; " }
            out += "\(word) d=\(s.domain) s=\(s.selector) \(s.algorithm)"
            if s.result != .pass, !s.reason.isEmpty { out += " (\(s.reason))" }
            if s.testing { out += " [testing key]" }
        }
        return out
    }

    /// A labelled line; the label, which may come from markup, is escaped like the value.
    func line(_ label: String, _ value: TerminalText, indent: Int = 2) -> TerminalText {
        let label = TerminalText(escaping: label)
        let width = label.text.count
        let padded = width >= Self.labelWidth ? label + " " : label + TerminalText(trusted: String(repeating: " ", count: Self.labelWidth - width))
        return TerminalText(trusted: String(repeating: " ", count: indent)) + style.paint(padded, .dim) + value + "\n"
    }

    /// MIME oddities are for `reservoir parts`; the banner shows what explains a reservation.
    static func isWorthShowing(_ diagnostic: ReportDiagnostic) -> Bool {
        diagnostic.stage != .mime && diagnostic.stage != .trust
    }

    /// The last two components of a path, as `split(separator: "/")` sees them, joined by "/"
    /// ("cur/1795.M1P2.host:2,S"). On bytes: one per banner.
    static func fileName(_ path: String) -> String {
        let bytes = Array(path.utf8)
        var components: [Range<Int>] = []
        var end = bytes.count
        while components.count < 2 {
            while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
            guard end > 0 else { break }
            var start = end
            while start > 0, bytes[start - 1] != UInt8(ascii: "/") { start -= 1 }
            components.append(start..<end)
            end = start
        }
        var name: [UInt8] = []
        for (i, range) in components.reversed().enumerated() {
            if i > 0 { name.append(UInt8(ascii: "/")) }
            name += bytes[range]
        }
        return String(decoding: name, as: UTF8.self)
    }

    // MARK: JSON

    /// One JSON object per message, for programs; stable member names.
    public static func json(_ report: MessageReport) -> String {
        jsonValue(report).serialized()
    }

    /// `verdict` gives each reservation's verdict: the report's own, or the forward's for an
    /// attached message (``ForwardedMessage/verdict(of:)``).
    static func jsonValue(_ report: MessageReport, verdict: ((ReportedReservation) -> ReservationVerdict)? = nil) -> JSONValue {
        let verdict = verdict ?? report.verdict(of:)
        let policy = AuthenticationResults.policyRefusal(report.trust)
        return JSONBuild.object([
            ("file", report.origin.path.map(JSONValue.string)),
            ("subject", report.subject.map(JSONValue.string)),
            (
                "from",
                .array(report.from.map { JSONBuild.object([("name", $0.displayName.map(JSONValue.string)), ("address", .string($0.address))]) })
            ),
            ("messageId", report.messageID.map(JSONValue.string)),
            ("date", report.date.map { .string(CivilTime.iso8601UTC($0)) }),
            ("dkim", .array(report.signatures.map { VerificationRenderer.jsonValue($0, policy: policy) })),
            (
                // The message's DKIM decision: what markup and calendar parts rest on. Each
                // reservation carries its own verdict (`trusted`, `refusal`, `proof`).
                "trust",
                JSONBuild.object([
                    ("trusted", .bool(report.trust.trusted)),
                    ("reason", .string(report.trust.reason)),
                    ("fromDomain", report.trust.fromDomain.map(JSONValue.string)),
                    ("vouchingDomain", report.trust.vouchingDomain.map(JSONValue.string)),
                    ("overrides", .array(report.trust.overrideFlags.map(JSONValue.string))),
                    ("refusals", .array(report.trust.refusals.map { .string($0.code.rawValue) })),
                    ("recipient", .string(Self.recipientText(report.trust.recipient))),
                    ("path", Self.pathJSON(report.trust.path)),
                ])
            ),
            ("reservations", .array(report.items.map { reservationJSON($0, verdict: verdict($0), sender: senderChoice(report, $0)) })),
            ("diagnostics", .array(report.diagnostics.map(JSONBuild.diagnostic))),
            ("forwarded", report.forwarded.isEmpty ? nil : Self.forwardedJSON(report)),
        ])
    }

    /// `sender`: the store's choice about a genuine sender not chosen yet, written as
    /// `"sender": {"choice": "pending"|"denied", "domain": …}` beside the verdict.
    static func reservationJSON(_ item: ReportedReservation, verdict: ReservationVerdict, sender: ReportDiagnostic? = nil) -> JSONValue {
        let r = item.reservation
        let choice = sender.flatMap { note in
            note.detail.map { domain in
                JSONBuild.object([("choice", .string(note.code == .senderPending ? "pending" : "denied")), ("domain", .string(domain))])
            }
        }
        return JSONBuild.object(
            JSONBuild.verdictMembers(verdict) + [("sender", choice)] + [
                ("category", .string(r.category.rawValue)),
                ("type", .string(r.schemaType)),
                ("reservationId", .string(r.reservationID)),
                ("item", .string(r.itemID)),
                ("status", .string(r.status.rawValue)),
                ("title", .string(r.title)),
                ("start", r.start.map { .string($0.text) }),
                ("end", r.end.map { .string($0.text) }),
                ("startInstant", r.start.flatMap(instantJSON)),
                ("endInstant", r.end.flatMap(instantJSON)),
                ("startTimeZone", r.start.flatMap(placementJSON)),
                ("endTimeZone", r.end.flatMap(placementJSON)),
                ("location", r.location.map(JSONValue.string)),
                ("details", detailsJSON(r.details)),
                ("change", item.change.map { .string($0.kind) }),
                ("source", .string(item.source != .markup ? "pass" : r.invitation == nil ? "markup" : "calendar")),
                ("pass", passJSON(item.source)),
                ("sequence", item.change.map { .number(Double($0.stored.sequence)) }),
                // The other instances a cancelled series took with it.
                (
                    "instances",
                    item.instanceChanges.isEmpty
                        ? nil
                        : .array(
                            item.instanceChanges.map { change in
                                JSONBuild.object([
                                    ("item", .string(change.stored.event.key.item)), ("change", .string(change.kind)),
                                    ("sequence", .number(Double(change.stored.sequence))),
                                ])
                            })
                ),
                ("schema", r.json),
            ])
    }

    /// The details keyed by their schema.org property, in order; a property given twice (two
    /// tickets) is a list. Counts are numbers.
    static func detailsJSON(_ details: [ReservationDetail]) -> JSONValue {
        var order: [String] = []
        var values: [String: [JSONValue]] = [:]
        for detail in details {
            if values[detail.property] == nil { order.append(detail.property) }
            let count = ["partySize", "numSeats"].contains(detail.property) ? Int(detail.value) : nil
            values[detail.property, default: []].append(count.map { .number(Double($0)) } ?? .string(detail.value))
        }
        return .object(JSONObject(pairs: order.map { key in (key, values[key].map { $0.count == 1 ? $0[0] : .array($0) } ?? .null) }))
    }

    /// The instant of a time, `2031-06-15T18:00:00Z`, whatever form the sender wrote it in; nil
    /// for floating time and for a date without a time (a whole day has no one instant).
    static func instantJSON(_ value: DateTimeValue) -> JSONValue? {
        guard !value.isDateOnly, let epoch = value.epochSeconds else { return nil }
        return .string(CivilTime.iso8601UTC(epoch))
    }

    /// A pass reservation's own verdict: `{"trusted": true, "reason": "…", "passType": "…",
    /// "teamIdentifier": "…", "organization": "…", "signedAt": "…Z", "refusal": "pass-…"}`;
    /// nil for markup, which the message's `trust` decides.
    static func passJSON(_ source: ReservationSource) -> JSONValue? {
        guard case .document(let decision) = source, decision.kind == .walletPass else { return nil }
        let signer = decision.passSigner
        return JSONBuild.object([
            ("trusted", .bool(decision.trusted)),
            ("reason", .string(decision.reason)),
            ("passType", signer.map { .string($0.passTypeIdentifier) }),
            ("teamIdentifier", signer.map { .string($0.teamIdentifier) }),
            ("organization", signer?.organization.map(JSONValue.string)),
            ("signedAt", signer?.signedAt.map { .string(CivilTime.iso8601UTC($0)) }),
            ("refusal", decision.refusal.map { .string($0.code.rawValue) }),
        ])
    }

    /// The zone a time without offset was read in: `{"name": "America/Los_Angeles", "evidence":
    /// "airport", "from": "airport SFO", "utcOffsetSeconds": -25200, "instant": "…Z"}`; nil
    /// for a time with its own offset and for floating time.
    static func placementJSON(_ value: DateTimeValue) -> JSONValue? {
        guard let placement = value.placement else { return nil }
        return JSONBuild.object([
            ("name", .string(placement.zone)),
            ("evidence", .string(placement.evidence.kind)),
            ("from", .string(placement.evidence.words)),
            ("utcOffsetSeconds", value.offsetSeconds.map { .number(Double($0)) }),
            ("instant", value.epochSeconds.map { .string(CivilTime.iso8601UTC($0)) }),
        ])
    }

    /// The summary in one line, for a scan of several accounts (`scan --all-accounts`): the
    /// counts of the `Scanned:` line and what the push did.
    public func line(_ summary: ScanSummary) -> String {
        var parts = Self.counts(summary)
        if case .pushed(let push) = summary.calendar {
            parts.append("calendar: pushed \(EnglishCount.of(push.pushed, "event")), \(push.waiting) waiting")
        }
        return parts.joined(separator: " · ")
    }

    /// The counts of the `Scanned:` line.
    static func counts(_ summary: ScanSummary) -> [String] {
        var parts = [
            EnglishCount.of(summary.messages, "message") + " read", "\(summary.withReservations) with reservations",
            "\(summary.trusted) trusted",
        ]
        if summary.withReservations > summary.trusted { parts.append("\(summary.withReservations - summary.trusted) untrusted") }
        let changes = summary.changes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        if !changes.isEmpty { parts.append("events: " + changes.joined(separator: ", ")) }
        if summary.readAgainSettingsChanged > 0 { parts.append("\(summary.readAgainSettingsChanged) read again: the trust settings changed") }
        if summary.readAgainNotRecorded > 0 {
            parts.append("\(summary.readAgainNotRecorded) read again: the last scan did not record its settings")
        }
        if summary.skippedUnchanged > 0 {
            parts.append("\(summary.skippedUnchanged) unchanged since the last scan, not read (--rescan reads them again)")
        }
        return parts
    }

    public func render(_ summary: ScanSummary, seconds: Double? = nil) -> String {
        var out = style.paint("Scanned: ", .bold) + "\(Self.counts(summary).joined(separator: " · "))\n"
        if !summary.categories.isEmpty {
            let categories = summary.categories.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            out += "Found:   \(categories.map { "\($0.value) \($0.key)" }.joined(separator: ", "))\n"
        }
        let dkim = summary.dkimResults.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        out += "DKIM:    \(dkim.isEmpty ? "no signatures" : dkim.joined(separator: ", "))\n"
        if !summary.diagnostics.isEmpty {
            let codes = summary.diagnostics.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            out += "Notes:   \(codes.map { "\($0.value) \($0.key)" }.joined(separator: ", "))\n"
        }
        switch summary.calendar {
        case nil: break
        case .skipped:
            out += "Calendar: not pushed (--no-calendar); what this scan recorded waits for the next push or reservoir sync\n"
        case .pushed(let push):
            var done = "pushed \(EnglishCount.of(push.pushed, "event"))"
            if push.removed > 0 { done += ", removed \(push.removed)" }
            out += "Calendar: \(done) to \(EnglishCount.of(push.calendars, "calendar")); \(push.waiting) waiting\n"
        }
        if let seconds {
            let rate = seconds > 0 ? " (\(Int(Double(summary.messages) / seconds)) messages/s)" : ""
            out += "Time:    \(String(Int(seconds * 100) / 100) + "." + twoDigits(Int(seconds * 100) % 100) + " s" + rate)\n"
        }
        return out.text
    }

    private func twoDigits(_ n: Int) -> String { n < 10 ? "0" + String(n) : String(n) }

    /// The last line of `scan --json`: `{"summary": {…}}` with the counts of the text summary
    /// under stable keys (categories and notes by their codes); no time, so the same scan
    /// prints the same bytes.
    public static func json(_ summary: ScanSummary) -> String {
        JSONBuild.object([("summary", jsonValue(summary))]).serialized()
    }

    /// The object under `summary` in ``json(_:)``.
    public static func jsonValue(_ summary: ScanSummary) -> JSONValue {
        func counts(_ table: [String: Int]) -> JSONValue {
            .object(JSONObject(pairs: table.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) }))
        }
        return JSONBuild.object([
            ("messages", .number(Double(summary.messages))),
            ("withReservations", .number(Double(summary.withReservations))),
            ("trusted", .number(Double(summary.trusted))),
            ("untrusted", .number(Double(summary.withReservations - summary.trusted))),
            ("unchangedNotRead", .number(Double(summary.skippedUnchanged))),
            ("readAgainSettingsChanged", .number(Double(summary.readAgainSettingsChanged))),
            ("readAgainNotRecorded", .number(Double(summary.readAgainNotRecorded))),
            ("events", counts(summary.changes)),
            ("reservations", counts(summary.categoryCodes)),
            ("dkim", counts(summary.dkimResults)),
            ("notes", counts(summary.diagnostics)),
            ("calendar", summary.calendar.map(calendarJSON)),
        ])
    }

    /// `{"skipped": true}` (`--no-calendar`), or `{"calendars", "pushed", "removed", "waiting"}`.
    static func calendarJSON(_ calendar: ScanSummary.CalendarPush) -> JSONValue {
        switch calendar {
        case .skipped: JSONBuild.object([("skipped", .bool(true))])
        case .pushed(let push):
            JSONBuild.object([
                ("calendars", .number(Double(push.calendars))), ("pushed", .number(Double(push.pushed))),
                ("removed", .number(Double(push.removed))), ("waiting", .number(Double(push.waiting))),
            ])
        }
    }
}

/// Counts over a scan, for the closing summary.
public struct ScanSummary: Sendable {
    public private(set) var messages = 0
    public private(set) var withReservations = 0
    public private(set) var trusted = 0
    /// Store changes by kind (`created`, `updated`, …).
    public private(set) var changes: [String: Int] = [:]
    /// Signatures by RFC 8601 result.
    public private(set) var dkimResults: [String: Int] = [:]
    /// Reservations found, by category ("Flight", "Hotel"…), trusted or not.
    public private(set) var categories: [String: Int] = [:]
    /// The same by category code (`flight`, `lodging`), for `--json`.
    public private(set) var categoryCodes: [String: Int] = [:]
    /// Diagnostics by stage and code ("reservations/ended"), MIME repairs left out.
    public private(set) var diagnostics: [String: Int] = [:]
    /// The first store failure, if any: a scan reports it and exits with EX_TEMPFAIL.
    public private(set) var storeFailure: String?
    /// Files an earlier scan already read, unchanged since, and not read again.
    public var skippedUnchanged = 0
    /// Unchanged files read again because a setting their outcome depended on changed.
    public var readAgainSettingsChanged = 0
    /// Unchanged files read again because an older reservoir recorded them without the
    /// settings they were read under.
    public var readAgainNotRecorded = 0
    /// What the push after the scan did; nil without a calendar.
    public var calendar: CalendarPush?

    /// The push to the calendars after a scan.
    public enum CalendarPush: Sendable, Equatable {
        /// `--no-calendar`: the calendars were left alone this run.
        case skipped
        case pushed(PushCounts)
    }

    public struct PushCounts: Sendable, Equatable {
        public var calendars: Int
        /// Events written (created, updated, cancelled).
        public var pushed: Int
        /// Copies of forgotten events removed.
        public var removed: Int
        /// Events and removals a calendar still waits for after the push.
        public var waiting: Int

        public init(calendars: Int, pushed: Int, removed: Int, waiting: Int) {
            self.calendars = calendars
            self.pushed = pushed
            self.removed = removed
            self.waiting = waiting
        }
    }

    public init() {}

    public mutating func add(_ report: MessageReport) {
        messages += 1
        add(reservationsOf: report)
        for signature in report.signatures { dkimResults[signature.result.rawValue, default: 0] += 1 }
        if storeFailure == nil, let failure = report.diagnostics.first(where: { $0.stage == .store }) {
            storeFailure = failure.message
        }
    }

    /// The reservations, changes and notes of a message and of the messages forwarded in it.
    mutating func add(reservationsOf report: MessageReport) {
        for forwarded in report.forwarded { add(reservationsOf: forwarded.report) }
        if report.hasReservations {
            withReservations += 1
            // A trusted message whose every item is refused on its own (an invitation's ORGANIZER) stored nothing.
            if report.items.contains(where: report.isTrusted) { trusted += 1 }
        }
        for item in report.items {
            if let change = item.change { changes[change.kind, default: 0] += 1 }
        }
        for item in report.items {
            categories[item.reservation.category.displayName, default: 0] += 1
            categoryCodes[item.reservation.category.rawValue, default: 0] += 1
        }
        for d in report.diagnostics where d.stage != .mime { diagnostics[d.code.description, default: 0] += 1 }
    }
}

/// Small builders for JSON output.
enum JSONBuild {
    /// An object of the members that have a value; nil members are left out.
    static func object(_ pairs: [(String, JSONValue?)]) -> JSONValue {
        .object(JSONObject(pairs: pairs.compactMap { key, value in value.map { (key, $0) } }))
    }

    /// A reservation's own verdict, the same members in every output (`banner`, `scan`,
    /// `extract`): `trusted`; when false, `refusal` `{"code", "reason"}`; and `proof` when it has
    /// one (``proof(_:)``).
    static func verdictMembers(_ verdict: ReservationVerdict) -> [(String, JSONValue?)] {
        [
            ("trusted", .bool(verdict.trusted)),
            (
                "refusal",
                verdict.refusal.map { object([("code", .string($0.code.rawValue)), ("reason", .string($0.sentence))]) }
            ),
            ("proof", verdict.proof.map(proof)),
        ]
    }

    /// `{"kind": "dkim", "domain"}`, `{"kind": "arc", "sealer", "instance", "domain"}`,
    /// `{"kind": "pass", "passType", "teamIdentifier", "organization", "signedAt"}`,
    /// `{"kind": "forward", "forwarder", "via", "message"}` (`via` as `forwarded[].forwarder.via`,
    /// absent when the forward is not shown to be the user's; `message` the attached message's
    /// proof), `{"kind": "page", "url", "domain"}` (`reservoir add URL`), `{"kind": "railTicket",
    /// "railway", "name", "keyId"}` (a rail ticket's signed bar code), `{"kind": "unverified"}`
    /// (`--allow-unverified`).
    static func proof(_ proof: ReservationProof) -> JSONValue {
        switch proof {
        case .dkim(let domain):
            object([("kind", .string("dkim")), ("domain", .string(domain))])
        case .arc(let sealer, let instance, let domain):
            object([
                ("kind", .string("arc")), ("sealer", .string(sealer)), ("instance", .number(Double(instance))), ("domain", .string(domain)),
            ])
        case .pass(let signer):
            object([
                ("kind", .string("pass")), ("passType", .string(signer.passTypeIdentifier)), ("teamIdentifier", .string(signer.teamIdentifier)),
                ("organization", signer.organization.map(JSONValue.string)),
                ("signedAt", signer.signedAt.map { .string(CivilTime.iso8601UTC($0)) }),
            ])
        case .forward(let forwarder, let vouch, let message):
            object([
                ("kind", .string("forward")), ("forwarder", forwarder.map(JSONValue.string)), ("via", vouch.map(BannerRenderer.vouchJSON)),
                ("message", self.proof(message)),
            ])
        case .page(let url, let domain):
            object([("kind", .string("page")), ("url", .string(url)), ("domain", .string(domain))])
        case .railTicket(let railway, let name, let keyID):
            object([
                ("kind", .string("railTicket")), ("railway", .string(railway)), ("name", name.map(JSONValue.string)),
                ("keyId", .string(keyID)),
            ])
        case .unverified:
            object([("kind", .string("unverified"))])
        }
    }

    static func diagnostic(_ d: ReportDiagnostic) -> JSONValue {
        object([
            ("stage", .string(d.stage.rawValue)), ("code", .string(d.code.description)), ("detail", d.detail.map(JSONValue.string)),
            ("message", .string(d.message)),
        ])
    }
}
