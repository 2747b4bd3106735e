public import DKIM
public import MIME

/// The message as one passing DKIM signature vouches for it: the header instances its `h=`
/// selected (RFC 6376 §5.4.2), the body as its canonicalization hashed it (§3.4), and the MIME
/// structure decided only by signed fields. Trusted markup is read from ``message``, whose
/// header section is the message's own (a field read through the view is signed only when its
/// name is in ``signedHeaders``; duplicates are refused before a view is made).
///
/// For almost all mail the ordinary reading and the signed one agree, and ``message`` is the
/// message itself, parsed once. Relaxed body canonicalization reads a line of only white space
/// as empty; when such a line stands in a part's header section, the two readings differ, and
/// ``message`` is the header followed by the canonical body, parsed again.
public struct SignedView: Sendable {
    /// The signing domain (`d=`).
    public let domain: String
    /// The message to read trusted markup from.
    public let message: Message
    /// Whether ``message`` was parsed again from the canonical body.
    public let isCanonicalReading: Bool
    /// The `h=` list of the signature, lowercased.
    public let signedHeaders: [String]
    /// The signature's `t=`, when it has one.
    public let signatureTimestamp: Int64?

    /// When the sender sent the message, by signed evidence only: the Date field when the
    /// signature covers it, else the signature's `t=`; nil when neither is signed. The store
    /// orders versions of a booking by it, so an unsigned Date cannot make a replayed message
    /// look newer.
    public var signedDate: Int64? {
        signedHeaders.contains("date") ? message.date?.epochSeconds ?? signatureTimestamp : signatureTimestamp
    }

    /// Whether the message has a Subject the signature does not cover.
    public var hasUnsignedSubject: Bool {
        message.header.count("subject") > 0 && !signedHeaders.contains("subject")
    }

    /// The To and Cc mailboxes the signature covers (parsed when asked: only `--me` needs them).
    public var recipients: [MailboxAddress] {
        ["to", "cc"].filter { signedHeaders.contains($0) }.flatMap { message.addresses($0) }
    }

    /// To or Cc fields present that the signature does not cover.
    public var hasUnsignedRecipients: Bool {
        ["to", "cc"].contains { message.header.count($0) > 0 && !signedHeaders.contains($0) }
    }

    /// The MIME fields that decide how a body is read (RFC 2045 §4, §5, §6); at the top level
    /// they must be signed, in every entity they may appear once.
    public static let structureFields = ["content-type", "content-transfer-encoding", "mime-version"]

    /// The fields RFC 5322 §3.6 allows once per message, and the MIME fields: a second
    /// instance leaves the choice of instance to the reader, not to the signature.
    public static let singletonFields =
        [
            "from", "sender", "reply-to", "to", "cc", "bcc", "message-id",
            "in-reply-to", "references", "subject", "date",
        ] + structureFields

    /// The fields only recipient binding (`--me`) reads.
    public static let recipientFields = ["to", "cc"]

    /// Checks that hold for the message whatever signature vouches for it: every field is
    /// seen, and no singleton field is repeated. Nil when they hold. Without
    /// `recipientBinding` (no `--me`) a repeated To or Cc refuses nothing: nothing is read from
    /// them, so which instance a reader takes decides nothing (the banner says the recipient was
    /// not checked). With it, the instance read decides whom the message was for.
    public static func messageRefusal(_ message: Message, recipientBinding: Bool = true) -> TrustRefusal? {
        if message.header.isTruncated { return .headerLimit }
        for (name, count) in zip(singletonFields, message.header.counts(of: singletonFields)) where count > 1 {
            if !recipientBinding, recipientFields.contains(name) { continue }
            return name == "from" ? .multipleFrom(count: count) : .duplicateField(name)
        }
        return nil
    }

    /// The view of `message` under `signature`, a signature that passed; or why markup read
    /// through it cannot be trusted. `wholeMessage` is false for a large message analysed from
    /// a copy without its attachments, which cannot be parsed again from its canonical body.
    public static func read(_ message: Message, signature: DKIMVerification, wholeMessage: Bool = true) -> SignedReading {
        let signed = signature.signedHeaders
        // RFC 6376 §5.4.2 picks instances bottom-up; with at most one instance (messageRefusal),
        // a name in h= covers that instance, and a name not in h= covers nothing.
        for (name, count) in zip(structureFields, message.header.counts(of: structureFields)) where count == 1 && !signed.contains(name) {
            return .refused(.unsignedStructure(name))
        }
        let canonicalization = signature.canonicalization ?? .simpleSimple
        var view = message
        var reparsed = false
        // RFC 6376 §3.4.4: relaxed body canonicalization reduces a line of white space to an
        // empty line, so a sender's empty line ending a part's header and an attacker's " " hash
        // alike. The structure is read from the canonical body then.
        if canonicalization.relaxedBody, message.root.anyPart(where: { $0.depth > 0 && $0.header.hasWhitespaceOnlyLine }) {
            guard wholeMessage else { return .refused(.structureNotVerifiable) }
            let header = message.bytes[0..<message.header.bodyStart]
            view = Message(bytes: Array(header) + DKIMCanonicalization.canonicalBody(message.bytes, in: message.bodyRange, relaxed: true))
            reparsed = true
        }
        let relaxed = canonicalization.relaxedBody || canonicalization.relaxedHeader
        var refusal: TrustRefusal?
        _ = view.root.anyPart { part in
            // RFC 6376 §3.4.2, §3.4.4: relaxed canonicalization signs a run of white space, not
            // its length; a boundary with white space could then be made to miss a delimiter.
            if relaxed, part.contentType.isMultipart,
                let boundary = part.contentType.parameters["boundary"], boundary.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 })
            {
                refusal = .whitespaceInBoundary
                return true
            }
            // RFC 2045: one Content-Type, Content-Transfer-Encoding and MIME-Version per entity.
            if part.depth > 0, let index = part.header.counts(of: structureFields).firstIndex(where: { $0 > 1 }) {
                refusal = .duplicateField(structureFields[index])
                return true
            }
            return false
        }
        if let refusal { return .refused(refusal) }
        return .read(
            SignedView(
                domain: signature.domain, message: view, isCanonicalReading: reparsed, signedHeaders: signed,
                signatureTimestamp: signature.timestamp))
    }
}

/// A signed view, or why markup read through the signature cannot be trusted.
public enum SignedReading: Sendable {
    case read(SignedView)
    case refused(TrustRefusal)
}
