import ARC
public import DKIM
public import DNS
public import Documents
public import EventStore
import Glibc
import MIME
public import Mailbox
import Markup
import Reservations
public import ReservoirBase
public import Trust
import WalletPass
import Zip

/// Runs one message through every stage: MIME → DKIM → markup → reservations → trust →
/// store, as an analysis that no policy enters (``analysis(_:listing:)``, ``MessageAnalysis``),
/// a decision under this pipeline's policy (``decide(_:)``) and a record of what it trusts
/// (``record(_:)``). Never throws for malformed mail; environment failures (the store) are
/// reported in ``MessageReport/diagnostics`` so a filter can still pass the message on.
public final class ReservationPipeline {
    /// What a pipeline reads and records with, whatever its policy: one of these is shared by
    /// every policy a message is decided under (``deciding(under:)``).
    public struct Settings {
        public var verifier: DKIMVerifier
        public var store: (any EventStore)?
        /// The clock of the pipeline's messages: `x=` expiry, "already ended", pending expiry
        /// and the arrival time recorded in the store.
        public var now: Int64
        /// Where a program that runs for days reads ``now`` from for each message
        /// (``ReservationPipeline/current()``): the system clock, unless `--now` pinned it.
        /// Without a clock set, the `now` the pipeline was made with.
        public var clock: WallClock
        /// Keep reservations that already ended (archives); normally they are dropped.
        public var includePast: Bool
        /// Days a pending reservation waits for the person's choice (`pending-days`).
        public var pendingDays = PendingLimits.defaultDays
        /// The UIC key list rail tickets are verified with (`--rail-keys`), read on first use.
        public var railKeys: RailKeySource?
        /// Reads a document's bar codes: the process's long-lived `reservoir-document` readers,
        /// beside this program (``Documents/DocumentReaderPool``).
        public var documentReader: @Sendable ([UInt8], DocumentType, Int) -> DocumentReading = {
            DocumentReaderPool.shared.read($0, type: $1, budgetMilliseconds: $2)
        }

        /// These settings with the clock at `time`.
        func at(_ time: Int64) -> Settings {
            var settings = self
            settings.verifier = verifier.at(time)
            settings.now = time
            return settings
        }
    }

    public private(set) var settings: Settings
    public let policy: TrustPolicy

    public var verifier: DKIMVerifier { settings.verifier }
    public var store: (any EventStore)? { settings.store }
    public var now: Int64 { settings.now }
    public var includePast: Bool { settings.includePast }
    public var clock: WallClock {
        get { settings.clock }
        set { settings.clock = newValue }
    }
    public var pendingDays: Int {
        get { settings.pendingDays }
        set { settings.pendingDays = newValue }
    }
    public var railKeys: RailKeySource? {
        get { settings.railKeys }
        set { settings.railKeys = newValue }
    }
    public var documentReader: @Sendable ([UInt8], DocumentType, Int) -> DocumentReading {
        get { settings.documentReader }
        set { settings.documentReader = newValue }
    }

    public init(resolver: any TXTResolver, policy: TrustPolicy, store: (any EventStore)?, now: Int64, includePast: Bool = false) {
        self.settings = Settings(
            verifier: DKIMVerifier(resolver: resolver, now: now), store: store, now: now, clock: .pinned(at: now), includePast: includePast)
        self.policy = policy
    }

    public init(settings: Settings, policy: TrustPolicy) {
        self.settings = settings
        self.policy = policy
    }

    /// A pipeline of the same settings deciding under `policy`: an analysis made by either is
    /// decided by both, its keys looked up once (the milter's accounts, docs/SITE.md).
    public func deciding(under policy: TrustPolicy) -> ReservationPipeline {
        ReservationPipeline(settings: settings, policy: policy)
    }

    /// This pipeline with ``now`` read from its ``clock``: what a program that runs for days
    /// (`watch`) analyses and records each message with, so that a signature's `x=` expires,
    /// a booking ends and a message arrives when the clock says, not when the program started.
    /// Itself when the clock has not moved (or is pinned).
    public func current() -> ReservationPipeline {
        let time = clock.now()
        return time == now ? self : ReservationPipeline(settings: settings.at(time), policy: policy)
    }

    /// The arrival time before which a pending reservation has expired.
    public var pendingExpiry: Int64 { now - Int64(max(0, pendingDays)) * 86_400 }

    /// The clock the readers drop ended reservations by: none with `--include-past`, and none
    /// when listing (`extract` lists ended ones, marked).
    func readingClock(listing: Bool) -> Int64? { includePast && !listing ? nil : now }

    public func process(_ raw: RawMessage) -> MessageReport {
        var report = analyze(raw)
        record(&report)
        return report
    }

    /// The analysis and its decision under this pipeline's policy: everything but the store.
    /// Touches no shared state but this pipeline's resolver cache, so a scan runs one pipeline
    /// per core. `listing` keeps the reservations that are listed but never stored (ended, date
    /// unknown: their ``Reservations/Reservation/marks``), for `extract`.
    public func analyze(_ raw: RawMessage, listing: Bool = false) -> MessageReport {
        decide(analysis(raw, listing: listing))
    }

    /// What `raw` is, whatever policy judges it: MIME, DKIM (each key looked up once) and,
    /// read on first need, the rest (``MessageAnalysis``).
    public func analysis(_ raw: RawMessage, listing: Bool = false) -> MessageAnalysis {
        guard let file = raw.file else {
            // Kept for a genuine sender not chosen yet, to be read again if the person allows it.
            let bytes = !listing && raw.bytes.count <= PendingLimits.maxMessageBytes ? raw.bytes : nil
            return analysis(Message(bytes: raw.bytes), origin: raw.origin, size: raw.bytes.count, body: .message, listing: listing, bytes: bytes)
        }
        // A large message: its skeleton (headers, delimiters, text parts) is analysed, and DKIM
        // hashes the body from the file, so no attachment is ever held in memory.
        let analysis = file.withDescriptor { fd -> MessageAnalysis in
            let skeleton: MessageSkeleton
            switch Self.readSkeleton(fd) {
            case .unusable(let problem): return unread(raw, problem, listing: listing)
            case .read(let read): skeleton = read
            }
            return self.analysis(
                Message(bytes: skeleton.bytes), origin: raw.origin, size: skeleton.size,
                body: .file(descriptor: fd, range: (skeleton.bodyStart ?? 0)..<skeleton.size), listing: listing,
                notes: skeleton.diagnostics.map(Self.mimeDiagnostic))
        }
        return analysis ?? unread(raw, Self.unopened(), listing: listing)
    }

    private enum SkeletonRead {
        case read(MessageSkeleton)
        case unusable(ReportDiagnostic)
    }

    /// The skeleton of a large message's file, or why it cannot be analysed.
    private static func readSkeleton(_ fd: Int32) -> SkeletonRead {
        guard let skeleton = MessageSkeleton.read(descriptor: fd) else {
            return .unusable(
                ReportDiagnostic(
                    .unreadable,
                    message: "the message file could not be read: \(String(cString: strerror(errno)))"))
        }
        guard !skeleton.headerTooLarge, skeleton.bodyStart != nil else {
            return .unusable(
                ReportDiagnostic(
                    .headerTooLarge,
                    message: "header section larger than \(Limits.maxStreamedHeaderBytes >> 20) MB: the message was not analysed"))
        }
        return .read(skeleton)
    }

    private static func unopened() -> ReportDiagnostic {
        ReportDiagnostic(.unreadable, message: "the message file could not be opened: \(String(cString: strerror(errno)))")
    }

    private static func mimeDiagnostic(_ diagnostic: MIMEDiagnostic) -> ReportDiagnostic {
        ReportDiagnostic(.mime(diagnostic.code), message: diagnostic.description)
    }

    /// `depth` counts the attached messages this one is inside (``ForwardedMessage``);
    /// `notes` are the skeleton reader's, before the MIME reader's.
    func analysis(
        _ message: Message, origin: MessageOrigin, size: Int, body: DKIMBodySource, depth: Int = 0, listing: Bool = false,
        bytes: [UInt8]? = nil, notes: [ReportDiagnostic] = []
    ) -> MessageAnalysis {
        var wholeMessage = true
        if case .file = body { wholeMessage = false }
        return MessageAnalysis(
            message: message, origin: origin, size: size, wholeMessage: wholeMessage, depth: depth, listing: listing,
            signatures: verifier.verify(message, body: body), diagnostics: notes + message.diagnostics(textPartsOnly: true).map(Self.mimeDiagnostic),
            bytes: bytes)
    }

    /// The verdict on `analysis` under this pipeline's policy: who vouches, which reservations
    /// each source gives and which of them are trusted. `handedOver` says the person gave the
    /// message to Reservoir (`reservoir add`) or forwarded it (``ForwarderCheck/isUser``),
    /// which binds its documents to them.
    public func decide(_ analysis: MessageAnalysis, handedOver: Bool = false) -> MessageReport {
        guard let message = analysis.message else {
            return MessageReport(
                origin: analysis.origin, size: analysis.size, subject: nil, subjectSigned: nil, from: [], messageID: nil, date: nil,
                orderingDate: nil, signatures: [], trust: policy.decide(signatures: [], fromDomains: []), items: [],
                diagnostics: analysis.problem.map { [$0] } ?? [])
        }
        let listing = analysis.listing
        let wholeMessage = analysis.wholeMessage
        let signatures = analysis.signatures
        let from = analysis.from
        var diagnostics = analysis.diagnostics

        var outcome = policy.decide(message, from: from, signatures: signatures, wholeMessage: wholeMessage)
        // The weaker ARC path (--trust-arc-sealer): the chain is validated only when no signature
        // of the message vouches, a sealer is trusted and the message is held whole.
        if outcome.decision.vouchingDomain == nil, !policy.trustedARCSealers.isEmpty, wholeMessage, ARCValidator.hasARCFields(message) {
            outcome = policy.decide(
                message, from: from, signatures: signatures, wholeMessage: wholeMessage,
                arc: analysis.arc { ARCValidator.validate(message, verifier: verifier) })
        }
        let trust = outcome.decision

        // Trusted markup is read the way the vouching signature reads the message; everything
        // else (untrusted, or --allow-unverified) from the message as it is, for display.
        let view = outcome.signedView
        let extraction = analysis.reading(\.readings, view?.isCanonicalReading ?? false) {
            readReservations(view?.message ?? message, listing: listing)
        }
        diagnostics += extraction.diagnostics
        // Only what can become an event: an item whose date is not known stays out of the store
        // (listed, marked, by `extract`).
        var items = extraction.reservations.filter { listing || $0.marks.isEmpty }.map {
            ReportedReservation(reservation: $0, event: CalendarEvent($0), change: nil, source: .markup)
        }
        if trust.trusted { checkOrganizers(&items, fromDomain: trust.fromDomain, diagnostics: &diagnostics) }
        if !items.isEmpty, !trust.trusted {
            // Each refusal has its own code, so a sender can see why the markup was not taken.
            diagnostics.append(ReportDiagnostic(.untrusted(trust.refusal?.code ?? .noSignature), message: trust.reason))
        }
        // Wallet passes vouch for themselves: read from the message as it is, whoever signed it.
        let passes = analysis.reading(\.passes, policy.passAnchors.paths) {
            readPasses(message, listing: listing, wholeMessage: wholeMessage)
        }
        diagnostics += passes.diagnostics
        for pass in passes.passes {
            let decision = policy.decide(pass: pass.verification)
            let kept = pass.reservations.filter { listing || $0.marks.isEmpty }
            if !kept.isEmpty, let refusal = decision.refusal {
                diagnostics.append(ReportDiagnostic(.untrusted(refusal.code), message: "Wallet pass: " + refusal.sentence))
            }
            items += kept.map { ReportedReservation(reservation: $0, event: CalendarEvent($0), change: nil, source: .document(decision)) }
        }
        // PDFs and images, read for their bar codes in a process of their own (once per
        // analysis); from the bytes the vouching signature reads when it vouches.
        let documents = readDocuments(
            view?.message ?? message, signedDate: trust.trusted ? view?.signedDate : nil, listing: listing, wholeMessage: wholeMessage,
            reader: { bytes, type, budget in
                analysis.reading(\.documents, DocumentKey(bytes: bytes, type: type)) { documentReader(bytes, type, budget) }
            })
        diagnostics += documents.diagnostics
        let documentMarkup = documents.items.contains { $0.source == .markup }
        if documentMarkup, !trust.trusted, !items.contains(where: { $0.source == .markup }) {
            diagnostics.append(ReportDiagnostic(.untrusted(trust.refusal?.code ?? .noSignature), message: trust.reason))
        }
        items += documents.items
        // docs/SECURITY.md, "Whose booking a document is": under recipient binding a document
        // that vouches for itself counts only in mail bound to the person.
        if !policy.recipients.isEmpty, !handedOver, items.contains(where: \.vouchesForItself), !trust.trusted,
            !policy.forwarder(message, from: from, signatures: signatures).isUser
        {
            for index in items.indices where items[index].vouchesForItself { items[index].unbind() }
            diagnostics.append(ReportDiagnostic(.untrusted(.documentNotAddressed), message: TrustRefusal.documentNotAddressed.sentence))
        }
        var subjectSigned: Bool?
        if trust.trusted, let view {
            subjectSigned = !view.hasUnsignedSubject
            if view.hasUnsignedSubject {
                diagnostics.append(
                    ReportDiagnostic(
                        .unsignedSubject,
                        message: "the Subject is not covered by the DKIM signature; anyone could have written it"))
            }
        }
        var report = MessageReport(
            origin: analysis.origin, size: analysis.size, subject: message.subject, subjectSigned: subjectSigned, from: from,
            messageID: message.messageID, date: message.date?.epochSeconds,
            orderingDate: (trust.trusted ? view : nil).map(\.signedDate) ?? message.date?.epochSeconds, signatures: signatures,
            trust: trust,
            items: items, diagnostics: diagnostics, walletPasses: passes.passes.count)
        if wholeMessage {
            let forwarding = forwardedMessages(of: analysis, in: message)
            report.forwarded = forwarding.messages
            report.diagnostics += forwarding.diagnostics
        }
        if !listing, report.pendingSenderDomain != nil {
            // What `reservoir allow` reads again: the analysis, decided again with the domain
            // allowed, and the message's bytes the store keeps (``MessageReport/pendingMessage``).
            report.analysis = analysis
        }
        return report
    }

    /// The analysis of a message that could not be read: nothing in it is trusted.
    private func unread(_ raw: RawMessage, _ problem: ReportDiagnostic, listing: Bool) -> MessageAnalysis {
        MessageAnalysis(unread: raw.origin, size: raw.size, problem: problem, listing: listing)
    }

    /// Applies a report's trusted reservations to the store, in message order; store failures
    /// become diagnostics so a filter can still pass the message on.
    public func record(_ report: inout MessageReport) {
        guard let store else { return }
        record(&report, into: store)
    }

    /// Records many reports with one commit (`EventStore/grouped(_:)`). When the commit
    /// fails nothing of the group was stored: every report that carried trusted reservations
    /// says so, and none claims a change.
    public func record(group reports: inout [MessageReport]) {
        guard let store else { return }
        guard reports.contains(where: \.hasReservationsToKeep) else { return }
        do {
            try store.grouped {
                for index in reports.indices { record(&reports[index], into: store) }
            }
        } catch {
            for index in reports.indices where reports[index].hasTrustedReservations {
                for item in reports[index].items.indices { reports[index].items[item].change = nil }
                for inner in reports[index].forwarded.indices {
                    for item in reports[index].forwarded[inner].report.items.indices {
                        reports[index].forwarded[inner].report.items[item].change = nil
                    }
                }
                if !reports[index].diagnostics.contains(where: { $0.stage == .store }) {
                    reports[index].diagnostics.append(ReportDiagnostic(.storeFailed, message: error.message))
                }
            }
        }
    }

    /// `record(_:)` into a store opened by the caller, for a hook that opens it only once a
    /// message turns out to carry trusted reservations.
    public func record(_ report: inout MessageReport, into store: any EventStore) {
        if report.pendingSenderDomain != nil, let senders = store.senders {
            do {
                try settleSender(&report, in: senders)
            } catch {
                report.diagnostics.append(ReportDiagnostic(.storeFailed, message: error.message))
                return
            }
        }
        for index in report.forwarded.indices {
            record(&report.forwarded[index].report, into: store)
            // A store failure is the message's: the filter and the scan read it there.
            if let failure = report.forwarded[index].report.diagnostics.first(where: { $0.stage == .store }),
                !report.diagnostics.contains(where: { $0.stage == .store })
            {
                report.diagnostics.append(failure)
            }
        }
        // A marked reservation (ended, date unknown) is listed by `extract`, never an event.
        for index in report.items.indices where report.isTrusted(report.items[index]) && report.items[index].reservation.marks.isEmpty {
            // Filed as its verdict says: its proof's owner, ordered by signed evidence only.
            let verdict = report.verdict(of: report.items[index])
            let provenance = MessageProvenance(
                messageID: report.messageID, path: report.origin.path, owner: verdict.owner, messageDate: verdict.orderedBy, arrival: now,
                proof: verdict.proof.flatMap(EventProof.init))
            // Bookings are keyed per owner: the proof's owner, never a name the message chose.
            report.items[index].event.key = report.items[index].event.key.filed(for: provenance, in: store.account)
            do {
                if let older = try olderInvitation(report.items[index], in: store) {
                    report.items[index].change = older
                    continue
                }
                if let cancelling = report.items[index].reservation.invitation, report.items[index].event.status == .cancelled {
                    let applied = try applyCancellation(report.items[index], evidence: cancelling, from: provenance, in: store)
                    report.items[index].change = applied.change
                    report.items[index].instanceChanges = applied.instances
                    if !applied.booked { report.diagnostics.append(Self.notBooked(report.items[index], owner: provenance.owner)) }
                    continue
                }
                // A cancellation applies only to what its owner booked (docs/SECURITY.md,
                // "Ownership of a booking"): one of a booking this owner never stored is kept
                // without times, in no calendar, not as a cancelled twin beside another owner's
                // booking of that number; decided on the stored event, inside the store's write.
                let event = report.items[index].event
                var booked = true
                report.items[index].change = try store.apply(event.key, from: provenance) { stored in
                    booked = stored != nil || event.status != .cancelled
                    return booked ? event : Self.unbookedCancellation(event)
                }
                if !booked { report.diagnostics.append(Self.notBooked(report.items[index], owner: provenance.owner)) }
            } catch {
                report.diagnostics.append(ReportDiagnostic(.storeFailed, message: error.message))
                return
            }
        }
    }

    /// The note of a cancellation that cancels nothing its owner booked.
    static func notBooked(_ item: ReportedReservation, owner: BookingOwner) -> ReportDiagnostic {
        let who = owner.isProven ? " from \(owner.storedText)" : ""
        return ReportDiagnostic(
            .cancelNotBooked,
            message:
                "cancels booking \(item.event.key.container), which was never booked here\(who): kept without times, in no calendar",
            detail: item.event.key.container)
    }

    /// A genuine sender's message whose domain no configured list allows
    /// (``MessageReport/pendingSenderDomain``), by the person's choice kept in the store: read
    /// again with the domain allowed (`reservoir allow`), refused with `sender-denied`
    /// (`reservoir deny`), or, with no choice yet, its markup reservations kept pending.
    func settleSender(_ report: inout MessageReport, in senders: any SenderStore) throws(EventStoreError) {
        guard let domain = report.pendingSenderDomain else { return }
        switch try senders.choice(for: domain) {
        case .allow:
            // Today's rules decide the same analysis again; only the domain's choice is added.
            guard let analysis = report.analysis, !policy.isAllowed(domain: domain) else { return }
            report = deciding(under: policy.allowing([domain])).decide(analysis)
        case .deny:
            report.diagnostics.append(
                ReportDiagnostic(.senderDenied, message: "\(domain) was denied (reservoir deny): its reservations are refused", detail: domain))
        case nil:
            guard let bytes = report.pendingMessage else { return }
            // The invitation rules trust applies hold here too: an event whose ORGANIZER is not
            // aligned with From never waits, as it would never be imported.
            var candidates = report.items.filter { ($0.source == .markup || $0.awaitsAddressing) && $0.reservation.marks.isEmpty }
            var unused: [ReportDiagnostic] = []
            checkOrganizers(&candidates, fromDomain: report.trust.fromDomain, diagnostics: &unused)
            // A pending reservation waits pending-days from the message's arrival (its Maildir
            // file's delivery time), not from the scan that found it; never from the future.
            let arrival = min(now, report.origin.deliveredAt ?? now)
            guard arrival >= pendingExpiry else { return }
            let pending = candidates.filter { $0.refusal == nil }.map { item in
                PendingReservation(
                    domain: domain, container: item.event.key.container, item: item.event.key.item, title: item.event.title,
                    start: item.event.start?.text, end: item.event.end?.text, reservationJSON: item.event.reservationJSON,
                    messageID: report.messageID, received: arrival, message: bytes)
            }
            guard !pending.isEmpty else { return }
            try senders.keepPending(pending, expiringBefore: pendingExpiry)
            report.diagnostics.append(
                ReportDiagnostic(
                    .senderPending,
                    message:
                        "\(domain) signed this genuinely but is not an allowed domain: \(pending.count == 1 ? "its reservation waits" : "its \(pending.count) reservations wait") for reservoir allow or deny",
                    detail: domain))
        }
    }

    /// The reservations a message's markup, calendar parts and passes describe, and those of the
    /// messages it forwards as attachments, trusted or not, each with its verdict
    /// (`reservoir extract`): the analysis of ``analyze(_:listing:)``, listing what is never
    /// stored too. The notes are the reading's: each reservation carries its own verdict, so the
    /// message's `untrusted-…` notes are left out.
    public func extract(_ raw: RawMessage) -> MessageExtraction {
        let report = analyze(raw, listing: true)
        var items = report.items.map { ListedReservation(reservation: $0.reservation, verdict: report.verdict(of: $0)) }
        var diagnostics = report.diagnostics
        for forwarded in report.forwarded {
            items += forwarded.report.items.map { ListedReservation(reservation: $0.reservation, verdict: forwarded.verdict(of: $0)) }
            diagnostics += forwarded.report.diagnostics
        }
        diagnostics.removeAll { if case .untrusted = $0.code { true } else { false } }
        return MessageExtraction(items: items, diagnostics: diagnostics)
    }

    /// Markup from every HTML part in message order, read as reservations; when the markup
    /// describes none, the events of the calendar parts (``readCalendars(_:parts:listing:)``).
    /// `listing` keeps the ended ones, marked (`extract`); otherwise they are dropped unless
    /// ``includePast``. The message's Date is evidence for dates whose day and month order is
    /// ambiguous.
    func readReservations(_ message: Message, listing: Bool) -> ReservationReading {
        var items: [StructuredItem] = []
        var diagnostics: [ReportDiagnostic] = []
        for part in message.htmlParts {
            let extraction = MarkupExtractor.extract(html: Array(message.text(of: part).utf8))
            items += extraction.items
            diagnostics += extraction.diagnostics.map { ReportDiagnostic(.markup($0.code), message: $0.message) }
        }
        let read = ReservationReader.read(
            items, now: readingClock(listing: listing), messageDate: message.date?.epochSeconds, keepEnded: listing)
        diagnostics += read.diagnostics.map { ReportDiagnostic(.reservations($0.code), message: $0.message, detail: $0.detail) }
        // Calendar parts are looked for by media type only; none is decoded unless it is read.
        let calendars = message.calendarParts
        guard !calendars.isEmpty else { return ReservationReading(reservations: read.reservations, diagnostics: diagnostics) }
        guard read.reservations.isEmpty else {
            diagnostics.append(
                ReportDiagnostic(
                    .calendarNotRead,
                    message:
                        "the markup describes the reservations; \(calendars.count == 1 ? "its calendar part, telling them again, is" : "its \(calendars.count) calendar parts, telling them again, are") not read"
                ))
            return ReservationReading(reservations: read.reservations, diagnostics: diagnostics)
        }
        let calendar = readCalendars(message, parts: calendars, listing: listing)
        return ReservationReading(reservations: calendar.reservations, diagnostics: diagnostics + calendar.diagnostics)
    }

    /// The passes of a message and what each vouches for.
    struct PassReading {
        struct Pass {
            var verification: PassVerification
            var reservations: [Reservation]
        }
        var passes: [Pass] = []
        var diagnostics: [ReportDiagnostic] = []
    }

    /// Every Wallet pass attached to the message (``Message/walletPassParts``, at most
    /// ``PassLimits/maxPassesPerMessage``), read, verified and read as reservations like markup.
    /// Nothing here runs for a message without one. A message read in pieces (over 2 MB) holds
    /// no attachment bodies: its passes are reported, not read.
    func readPasses(_ message: Message, listing: Bool, wholeMessage: Bool) -> PassReading {
        var reading = PassReading()
        let parts = Self.walletPassParts(message)
        guard !parts.isEmpty else { return reading }
        guard wholeMessage else {
            reading.diagnostics.append(
                ReportDiagnostic(
                    .pass(.passUnreadable), message: "the message is over 2 MB and its attachments are not read: its Wallet pass is not read"))
            return reading
        }
        for (index, part) in parts.enumerated() {
            guard index < PassLimits.maxPassesPerMessage else {
                reading.diagnostics.append(
                    ReportDiagnostic(
                        .pass(.passUnreadable),
                        message: "more than \(PassLimits.maxPassesPerMessage) Wallet passes in one message: the rest are not read"))
                break
            }
            // Nothing of the mail around a pass is signed: its dates are read by the pass's own
            // evidence (the signed signing time, not the message's Date: docs/SECURITY.md).
            let pass = WalletPass.read(message.decodedBody(of: part), anchors: policy.passAnchors, now: now)
            reading.diagnostics += pass.zipDiagnostics.map { ReportDiagnostic(.zip($0.code), message: "Wallet pass: " + $0.message) }
            reading.diagnostics += pass.diagnostics.map { ReportDiagnostic(.pass($0.code), message: $0.message, detail: $0.detail) }
            var signedAt: Int64?
            if case .verified(let signer) = pass.verification { signedAt = signer.signedAt }
            let items = pass.items.map { StructuredItem(value: $0, source: .jsonLD) }
            let read = ReservationReader.read(items, now: readingClock(listing: listing), messageDate: signedAt, keepEnded: listing)
            reading.diagnostics += read.diagnostics.map { ReportDiagnostic(.reservations($0.code), message: $0.message, detail: $0.detail) }
            var reservations = read.reservations
            // A year only the clock gave is listed (`extract`), never an event.
            if pass.unsignedYear {
                for index in reservations.indices where !reservations[index].marks.contains(.yearUnsigned) {
                    reservations[index].marks.append(.yearUnsigned)
                }
            }
            reading.passes.append(PassReading.Pass(verification: pass.verification, reservations: reservations))
        }
        return reading
    }

    /// The leaves of the message's own body that are Wallet passes: `application/vnd.apple.pkpass`,
    /// or a `.pkpass` file name on `application/octet-stream`. Parts inside an attached message
    /// are its own.
    static func walletPassParts(_ message: Message) -> [MIMEPart] {
        var result: [MIMEPart] = []
        func walk(_ part: MIMEPart) {
            if part.contentType.type == "message", part.depth > 0 { return }
            if part.contentType.isMultipart {
                for child in part.children { walk(child) }
            } else if isWalletPass(part) {
                result.append(part)
            }
        }
        walk(message.root)
        return result
    }

    static func isWalletPass(_ part: MIMEPart) -> Bool {
        let type = part.contentType.mediaType
        if type == "application/vnd.apple.pkpass" { return true }
        guard type == "application/octet-stream", let name = part.filename else { return false }
        return name.lowercased().hasSuffix(".pkpass")
    }
}
