import Foundation
import DNS
import Mailbox
import EventStore
@testable import Pipeline
import Trust

/// The project's sample Maildir, found from this file's location.
enum Samples {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let maildir = root.appendingPathComponent("Maildir-samples")
    static let keysZone = maildir.appendingPathComponent("keys.zone").path

    /// 2026-11-22T12:00:00Z: after every sample was sent, before any reservation starts.
    static let now: Int64 = 1_795_348_800

    /// The sample whose Maildir file name carries `M<number>` (the order of scripts/samples/).
    static func message(_ number: Int) throws -> RawMessage {
        for folder in ["cur", "new"] {
            let dir = maildir.appendingPathComponent(folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            if let name = names.first(where: { $0.contains(".M\(number)P") }) {
                return try MessageSource.file(dir.appendingPathComponent(name).path)
            }
        }
        throw CocoaError(.fileNoSuchFile)
    }

    static func pipeline(store: (any EventStore)? = nil, policy: TrustPolicy? = nil, now: Int64 = now) throws -> ReservationPipeline {
        let keys = try KeysFile(path: keysZone)
        let allowed = ["epicsteak.example", "cascadia-air.example", "harborview-hotels.example",
                       "railalpina.example", "trattorialucca.example"]
        return ReservationPipeline(resolver: keys, policy: policy ?? TrustPolicy(allowedDomains: allowed),
                                   store: store, now: now)
    }
}

/// A store in a fresh temporary directory.
struct TemporaryStore {
    let directory = NSTemporaryDirectory() + "reservoir-pipeline-\(UUID().uuidString)"
    var path: String { directory + "/events.sqlite3" }
    func open() throws -> any EventStore { try EventStoreLocation.open("sqlite:" + path) }
    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
