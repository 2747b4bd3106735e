import Mailbox
import Trust

/// A document file handed to `reservoir add` that is not mail: a Wallet pass, a calendar
/// object, a PDF or an image.
public enum DocumentKind: String, Sendable, CaseIterable {
    case walletPass = "application/vnd.apple.pkpass"
    case calendar = "text/calendar"
    case pdf = "application/pdf"
    case png = "image/png"
    case jpeg = "image/jpeg"
    case gif = "image/gif"

    /// The kind a file name's extension says, nil for any other.
    public init?(fileName: String) {
        let lower = fileName.lowercased()
        guard let dot = lower.lastIndex(of: ".") else { return nil }
        switch lower[lower.index(after: dot)...] {
        case "pkpass": self = .walletPass
        case "ics": self = .calendar
        case "pdf": self = .pdf
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "gif": self = .gif
        default: return nil
        }
    }
}

extension ReservationPipeline {
    /// A document read as the one part of a message no one signed: a pass and a rail ticket
    /// keep the proof they carry (their own signatures, docs/SECURITY.md), anything else has
    /// none (`document-no-proof`), whatever else the empty envelope would say (no From, no
    /// signature). The envelope's body is the file's bytes unchanged (RFC 3030's `binary`
    /// transfer encoding), so nothing is re-encoded on the way.
    public func analyze(document bytes: [UInt8], kind: DocumentKind, path: String) -> MessageReport {
        let name = String(path.split(separator: "/").last ?? "document").filter { $0 != "\"" && $0 != "\\" && $0 >= " " }
        var header = "MIME-Version: 1.0\r\nContent-Type: \(kind.rawValue)\r\n"
        header += "Content-Disposition: attachment; filename=\"\(name)\"\r\nContent-Transfer-Encoding: binary\r\n\r\n"
        // The person handed the file over: it is theirs, whatever recipient binding says.
        var report = decide(analysis(RawMessage(bytes: Array(header.utf8) + bytes, origin: MessageOrigin(path: path))), handedOver: true)
        let trust = policy.decideUnproven()
        report.trust = trust
        report.size = bytes.count
        report.diagnostics.removeAll { if case .untrusted = $0.code { return true } else { return false } }
        if report.hasMarkupReservations, !trust.trusted {
            report.diagnostics.append(ReportDiagnostic(.untrusted(.documentNoProof), message: trust.reason))
        }
        return report
    }
}
