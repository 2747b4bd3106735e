import ARC
public import DKIM
import Documents
import MIME
public import Mailbox
import Synchronization

/// What a message is, whatever policy judges it: its MIME reading, its DKIM signatures verified
/// (their keys looked up once), and, read on first need and then kept, its ARC chain, the
/// reservations of its markup and calendar parts as each signed view reads them, its Wallet
/// passes, its documents' bar codes and the messages it forwards. No setting of a person or an
/// account enters it: ``ReservationPipeline/decide(_:)`` turns it into a verdict under one
/// policy, and a second decision (another account of the site, a sender just allowed) reads
/// nothing again.
///
/// The kept readings are guarded by a lock, so an analysis made on one thread may be decided on
/// another; decisions of one analysis are not meant to run at the same time.
public final class MessageAnalysis: Sendable {
    public let origin: MessageOrigin
    /// Size of the message in bytes.
    public let size: Int
    /// The message as read: whole, or a large message's skeleton. Nil when it could not be read.
    let message: Message?
    /// Why the message could not be read; nil when it was.
    let problem: ReportDiagnostic?
    /// False for a large message analysed from a copy without its attachments.
    let wholeMessage: Bool
    /// The attached messages this one is inside (``ForwardedMessage``).
    let depth: Int
    /// Whether reservations listed but never stored are kept (`extract`).
    let listing: Bool
    let from: [MailboxAddress]
    public let signatures: [DKIMVerification]
    /// The MIME reader's notes.
    let diagnostics: [ReportDiagnostic]
    /// The message's bytes, for a message held whole that may wait as pending
    /// (``MessageReport/pendingMessage``).
    let bytes: [UInt8]?
    private let kept = Mutex(Kept())

    /// What is read on first need and kept.
    struct Kept {
        /// Nil: not validated yet.
        var arc: ARCValidation?
        /// The reservations of markup and calendar parts, by the view read: `true` for a view
        /// parsed again from the canonical body (``Trust/SignedView/isCanonicalReading``).
        var readings: [Bool: ReservationReading] = [:]
        /// The Wallet passes, by the pass CA files they were verified with.
        var passes: [[String]: ReservationPipeline.PassReading] = [:]
        /// Each document's bar codes, by its bytes: reading them is a process of its own.
        var documents: [DocumentKey: DocumentReading] = [:]
        /// The attached messages' analyses and the notes about them.
        var forwarded: ForwardedAnalyses?
    }

    struct ForwardedAnalyses {
        var messages: [MessageAnalysis]
        var diagnostics: [ReportDiagnostic]
    }

    init(
        message: Message, origin: MessageOrigin, size: Int, wholeMessage: Bool, depth: Int, listing: Bool,
        signatures: [DKIMVerification], diagnostics: [ReportDiagnostic], bytes: [UInt8]?
    ) {
        self.message = message
        self.problem = nil
        self.origin = origin
        self.size = size
        self.wholeMessage = wholeMessage
        self.depth = depth
        self.listing = listing
        self.from = message.from
        self.signatures = signatures
        self.diagnostics = diagnostics
        self.bytes = bytes
    }

    /// A message that could not be read: nothing in it can be trusted.
    init(unread origin: MessageOrigin, size: Int, problem: ReportDiagnostic, listing: Bool) {
        self.message = nil
        self.problem = problem
        self.origin = origin
        self.size = size
        self.wholeMessage = false
        self.depth = 0
        self.listing = listing
        self.from = []
        self.signatures = []
        self.diagnostics = []
        self.bytes = nil
    }

    /// The message's ARC chain (RFC 8617 §5.2), validated once by `validate`.
    func arc(_ validate: () -> ARCValidation) -> ARCValidation {
        if let known = kept.withLock({ $0.arc }) { return known }
        let validation = validate()
        kept.withLock { $0.arc = validation }
        return validation
    }

    /// `read()` once per key of the kept readings at `path`.
    func reading<Key: Hashable, Value: Sendable>(
        _ path: WritableKeyPath<Kept, [Key: Value]>, _ key: Key, _ read: () -> Value
    ) -> Value {
        if let known = kept.withLock({ $0[keyPath: path][key] }) { return known }
        let value = read()
        kept.withLock { $0[keyPath: path][key] = value }
        return value
    }

    /// The attached messages' analyses, made once.
    func forwarded(_ analyse: () -> ForwardedAnalyses) -> ForwardedAnalyses {
        if let known = kept.withLock({ $0.forwarded }) { return known }
        let analyses = analyse()
        kept.withLock { $0.forwarded = analyses }
        return analyses
    }
}
