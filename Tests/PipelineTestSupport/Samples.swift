import DNS
public import EventStore
public import Foundation
public import MIME
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
