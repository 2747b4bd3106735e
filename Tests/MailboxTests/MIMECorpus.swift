import Foundation

/// The shared MIME corpora (`../shared/corpora/mime` beside the package), whose Maildir tree
/// the source tests read when present.
enum MIMECorpus {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/corpora/mime").standardizedFileURL

    static var available: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("README.md").path) }
}
