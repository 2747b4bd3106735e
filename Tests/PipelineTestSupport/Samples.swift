import DNS
public import EventStore
public import Foundation
import MIME
public import Mailbox
public import Pipeline
public import Trust

/// The project's sample Maildir, found from this file's location, for the tests of the
/// pipeline and of its output.
public enum Samples {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    public static let maildir = root.appendingPathComponent("Maildir-samples")
    public static let keysZone = maildir.appendingPathComponent("keys.zone").path

    /// 2026-11-22T12:00:00Z: after every sample was sent, before any reservation starts.
    public static let now: Int64 = 1_795_348_800

    /// The sample whose Maildir file name carries `M<number>` (the order of scripts/samples/).
    public static func message(_ number: Int) throws -> RawMessage {
        for folder in ["cur", "new"] {
            let dir = maildir.appendingPathComponent(folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            if let name = names.first(where: { $0.contains(".M\(number)P") }) {
                return try MessageSource.file(dir.appendingPathComponent(name).path)
            }
        }
        throw CocoaError(.fileNoSuchFile)
    }

    public static func pipeline(store: (any EventStore)? = nil, policy: TrustPolicy? = nil, now: Int64 = now) throws -> ReservationPipeline {
        let keys = try KeysFile(path: keysZone)
        let allowed = [
            "epicsteak.example", "cascadia-air.example", "harborview-hotels.example",
            "railalpina.example", "trattorialucca.example",
        ]
        return ReservationPipeline(
            resolver: keys, policy: policy ?? TrustPolicy(allowedDomains: allowed),
            store: store, now: now)
    }
}

/// A store in a fresh temporary directory.
public struct TemporaryStore {
    public init() {}
    public let directory = NSTemporaryDirectory() + "reservoir-pipeline-\(UUID().uuidString)"
    public var path: String { directory + "/events.sqlite3" }
    public func open() throws -> any EventStore { try EventStoreLocation.open("sqlite:" + path) }
    public func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// Unsigned mail carrying one attachment, as a stranger (or the person) sends a document on.
public enum AttachmentMail {
    /// The person's own verifier's field (`--trust-authserv-id mx.home.example`) vouching for
    /// mail of home.example.
    public static let ownVerifierField = "Authentication-Results: mx.home.example; dkim=pass header.d=home.example\r\n"

    /// A message from `from` to jane@home.example with a short text part and `body` attached
    /// as `contentType` named `filename` (base64), the person's own verifier's field on top
    /// when `verified`.
    public static func message(
        from: String = "Someone <someone@elsewhere.example>", subject: String, date: String, contentType: String, filename: String,
        body: [UInt8], verified: Bool = false
    ) -> RawMessage {
        let text = """
            From: \(from)\r
            To: jane@home.example\r
            Subject: \(subject)\r
            Date: \(date)\r
            MIME-Version: 1.0\r
            Content-Type: multipart/mixed; boundary="b"\r
            \r
            --b\r
            Content-Type: text/plain\r
            \r
            Attached.\r
            --b\r
            Content-Type: \(contentType)\r
            Content-Disposition: attachment; filename="\(filename)"\r
            Content-Transfer-Encoding: base64\r
            \r
            \(Data(body).base64EncodedString(options: .lineLength76Characters))\r
            --b--\r

            """
        return RawMessage(bytes: Array(((verified ? ownVerifierField : "") + text).utf8), origin: MessageOrigin(path: nil))
    }
}
