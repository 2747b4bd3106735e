import DKIM
import MIME
import Mailbox
public import Trust

/// Bounds on the reading of attached messages.
public enum ForwardLimits {
    /// Levels of attached messages read: the message's own attachments, not theirs. A message
    /// attached inside an attached message is noted (`forward-too-deep`), not read.
    public static let maxDepth = 1
    /// Attached messages read per message; more are noted (`too-many-forwarded`).
    public static let maxMessages = 8
}

/// A message attached to another as a `message/rfc822` (or `message/global`) part, the way
/// people forward a confirmation "as attachment": the nested run of the pipeline over the
/// part's bytes, and the check of who forwarded it.
///
/// ``report`` is the inner message's own report (its DKIM, markup and reservations), with its
/// ``MessageReport/trust`` being the decision for its reservations: the inner message's own
/// decision, refused with the forwarder's refusal when the outer message is not shown to come
/// from the user (``ForwarderCheck``). Trusted inner reservations are stored like direct mail,
/// owned by the inner vouching domain.
public struct ForwardedMessage: Sendable {
    /// 1 for the first attached message in document order.
    public var position: Int
    /// Who forwarded it, and how that was shown to be the user.
    public var forwarder: ForwarderCheck
    /// Whether the inner message passed on its own, before the forwarder was considered.
    public var innerTrusted: Bool
    public var report: MessageReport
}

extension ReservationPipeline {
    /// The attached messages of `analysis`'s `message`, each analysed once at `depth + 1` and
    /// decided here. Called for a message held whole only: a large message's skeleton drops
    /// attachments.
    func forwardedMessages(of analysis: MessageAnalysis, in message: Message) -> (messages: [ForwardedMessage], diagnostics: [ReportDiagnostic]) {
        let inner = analysis.forwarded { attachedAnalyses(in: message, origin: analysis.origin, depth: analysis.depth, listing: analysis.listing) }
        guard !inner.messages.isEmpty else { return ([], inner.diagnostics) }
        let check = policy.forwarder(message, from: analysis.from, signatures: analysis.signatures)
        var result: [ForwardedMessage] = []
        for (index, attached) in inner.messages.enumerated() {
            // The person's own forward binds the documents in it to them (docs/SECURITY.md).
            var report = decide(attached, handedOver: check.isUser)
            let innerTrusted = report.trust.trusted
            if let refusal = check.refusal {
                if innerTrusted {
                    // The inner message passes on its own; the forward is what fails. A Wallet
                    // pass inside it keeps its own decision: its proof survives forwarding.
                    report.trust.trusted = false
                    report.trust.refusals.insert(refusal, at: 0)
                    if report.hasMarkupReservations {
                        report.diagnostics.append(ReportDiagnostic(.untrusted(refusal.code), message: report.trust.reason))
                    }
                } else {
                    report.trust.refusals.append(refusal)
                }
            }
            result.append(ForwardedMessage(position: index + 1, forwarder: check, innerTrusted: innerTrusted, report: report))
        }
        return (result, inner.diagnostics)
    }

    /// The analyses of the attached messages of `message`, at most ``ForwardLimits/maxMessages``,
    /// none below ``ForwardLimits/maxDepth``.
    private func attachedAnalyses(in message: Message, origin: MessageOrigin, depth: Int, listing: Bool) -> MessageAnalysis.ForwardedAnalyses {
        let parts = Self.attachedMessages(message.root)
        guard !parts.isEmpty else { return MessageAnalysis.ForwardedAnalyses(messages: [], diagnostics: []) }
        guard depth < ForwardLimits.maxDepth else {
            return MessageAnalysis.ForwardedAnalyses(
                messages: [],
                diagnostics: [
                    ReportDiagnostic(
                        .forwardTooDeep,
                        message: "an attached message inside a forwarded message was not read (more than \(ForwardLimits.maxDepth) level)")
                ])
        }
        var diagnostics: [ReportDiagnostic] = []
        if parts.count > ForwardLimits.maxMessages {
            diagnostics.append(
                ReportDiagnostic(
                    .tooManyForwarded,
                    message: "\(parts.count) attached messages; only the first \(ForwardLimits.maxMessages) were read"))
        }
        let messages = parts.prefix(ForwardLimits.maxMessages).map { part in
            let bytes = message.decodedBody(of: part)
            return analysis(Message(bytes: bytes), origin: origin, size: bytes.count, body: .message, depth: depth + 1, listing: listing)
        }
        return MessageAnalysis.ForwardedAnalyses(messages: messages, diagnostics: diagnostics)
    }

    /// The `message/rfc822` and `message/global` parts below the root, in document order, not
    /// looking inside them.
    static func attachedMessages(_ root: MIMEPart) -> [MIMEPart] {
        var found: [MIMEPart] = []
        func walk(_ part: MIMEPart) {
            if part.depth > 0, part.contentType.type == "message",
                part.contentType.subtype == "rfc822" || part.contentType.subtype == "global"
            {
                found.append(part)
                return
            }
            for child in part.children { walk(child) }
        }
        walk(root)
        return found
    }
}
