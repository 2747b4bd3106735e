package import EventStore
import Mailbox
package import Pipeline

/// The person's choice about a sender domain, made the same way whoever asks (`reservoir allow`
/// and `deny`; the page's buttons when they come): recorded with the time and who decided, then
/// the domain's pending reservations imported or dropped.
package enum SenderChoices {
    /// One pending message read again after `allow`.
    package struct Imported {
        package var report: MessageReport
        /// The reservations it put in the store (changed there), empty when today's rules refuse it.
        package var changed: [ReportedReservation]
    }

    /// Records `allow` for `domain`, then reads each of its pending messages (received at or
    /// after `expiry`) again through the runner `makeRunner` builds once the choice is recorded
    /// (its policy then holds the domain among the store's allowed ones, ``CommandRunner``):
    /// each signature verified again, today's rules applied, the trusted reservations recorded.
    /// The pending rows go once read.
    package static func allow(
        _ domain: String, senders: any SenderStore, expiry: Int64, at now: Int64, by who: String,
        makeRunner: () throws -> CommandRunner
    ) throws -> (runner: CommandRunner, imported: [Imported]) {
        let waiting: [PendingReservation]
        do {
            try senders.decideSender(SenderDecision(domain: domain, choice: .allow, decidedAt: now, decidedBy: who))
            waiting = try senders.pendingReservations(receivedSince: expiry).filter { $0.domain == domain }
        } catch {
            throw CommandFailure.store(error.message)
        }
        let runner = try makeRunner()
        var messages: [[UInt8]] = []
        for reservation in waiting where !messages.contains(reservation.message) { messages.append(reservation.message) }
        var imported: [Imported] = []
        for bytes in messages {
            // The runner's policy allows the domain now: a trusted report is recorded, nothing else is.
            let report = runner.pipeline.process(RawMessage(bytes: bytes, origin: MessageOrigin()))
            try runner.check(report)
            imported.append(Imported(report: report, changed: report.items.filter { report.isTrusted($0) && $0.change != nil }))
        }
        do { _ = try senders.removePending(domain: domain) } catch { throw CommandFailure.store(error.message) }
        return (runner, imported)
    }

    /// Records `deny` for `domain` and drops its pending reservations, which it returns.
    package static func deny(_ domain: String, senders: any SenderStore, at now: Int64, by who: String) throws -> [PendingReservation] {
        do {
            try senders.decideSender(SenderDecision(domain: domain, choice: .deny, decidedAt: now, decidedBy: who))
            return try senders.removePending(domain: domain)
        } catch {
            throw CommandFailure.store(error.message)
        }
    }
}
