import EventStore
import Mailbox
import Markup
import Reservations
import Trust

/// Where a page's bytes came from, which decides what can vouch for them.
public enum PageOrigin: Sendable, Equatable {
    /// Fetched from `url` on `host`; `https` when over verified TLS.
    case fetched(url: String, host: String, https: Bool)
    /// Read from a file: nothing proves who wrote it.
    case file(path: String)
}

extension ReservationPipeline {
    /// The reservations of a page's JSON-LD and Microdata (`reservoir add`), with the trust
    /// decision its origin allows: ``TrustPolicy/decide(page:host:https:)`` for a fetched page,
    /// ``TrustPolicy/decideUnproven()`` for a file. Nothing is recorded here: ``record(_:)``
    /// does that as for mail, the page's registered domain owning what it books.
    public func analyze(page bytes: [UInt8], origin: PageOrigin) -> MessageReport {
        let extraction = MarkupExtractor.extract(html: bytes)
        var diagnostics = extraction.diagnostics.map { ReportDiagnostic(.markup($0.code), message: $0.message) }
        // No signed date says when a page was written: dates whose order is ambiguous stay so.
        let read = ReservationReader.read(extraction.items, now: readingClock(listing: false), messageDate: nil, keepEnded: false)
        diagnostics += read.diagnostics.map { ReportDiagnostic(.reservations($0.code), message: $0.message, detail: $0.detail) }
        let items = read.reservations.filter { $0.marks.isEmpty }.map {
            ReportedReservation(reservation: $0, event: CalendarEvent($0), change: nil, source: .markup)
        }
        let trust: TrustDecision
        let path: String?
        switch origin {
        case .fetched(let url, let host, let https):
            trust = policy.decide(page: url, host: host, https: https)
            path = url
        case .file(let file):
            trust = policy.decideUnproven()
            path = file
        }
        if !items.isEmpty, !trust.trusted {
            diagnostics.append(ReportDiagnostic(.untrusted(trust.refusal?.code ?? .documentNoProof), message: trust.reason))
        }
        return MessageReport(
            origin: MessageOrigin(path: path), size: bytes.count, subject: nil, subjectSigned: nil, from: [], messageID: nil, date: nil,
            orderingDate: nil, signatures: [], trust: trust, items: items, diagnostics: diagnostics)
    }
}
