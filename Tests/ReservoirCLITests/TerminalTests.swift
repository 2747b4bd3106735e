import Foundation
import Glibc
import PostgresTestSupport
import TestRequirements
import Testing

/// What a person at a terminal sees: `script(1)` gives the command a pseudo-terminal for its
/// standard input, output and error, and records what was written to it.
@Suite("on a terminal")
struct TerminalTests {
    static let script = "/usr/bin/script"
    static var hasScript: Bool { FileManager.default.isExecutableFile(atPath: script) }

    /// `arguments` run by `reservoir` on a terminal; what the terminal showed.
    static func onTerminal(_ arguments: [String]) throws -> String {
        let command = ([ReservoirBinary.executable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let r = try ChildProcess.capture(["/usr/bin/env", "NO_COLOR=1", script, "-qec", command, "/dev/null"], stdin: "/dev/null")
        return String(decoding: r.stdout, as: UTF8.self)
    }

    @Test("banner without a file on a terminal says it reads standard input", .enabled(if: Requirement.met(hasScript), "needs script(1) (bsdutils)"))
    func bannerSaysItReadsStandardInput() throws {
        let shown = try Self.onTerminal(["banner", "--keys", ReservoirBinary.keys])
        #expect(shown.contains("reading a message from standard input"), "\(shown)")
    }

    @Test(
        "scan on a terminal clears the progress line before the banners, and the summary replaces it",
        .enabled(if: Requirement.met(hasScript), "needs script(1) (bsdutils)"))
    func progressLineCleared() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let shown = try Self.onTerminal([
            "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys, "--allow-any-domain", "--now", ReservoirBinary.now,
            "--store", "sqlite:\(tmp.path)/events.sqlite3", "--retry-spool", tmp.path + "/retry",
        ])
        let clear = "\r\u{1B}[2K"
        #expect(shown.contains("scanning: "), "no progress line: \(shown.prefix(300))")
        // Every progress line is taken off before anything else is written on its line.
        for piece in shown.components(separatedBy: "scanning: ").dropFirst() {
            let line = piece.prefix { $0 != "\r" && $0 != "\n" }
            let after = piece.dropFirst(line.count)
            #expect(after.hasPrefix(clear), "a progress line left on the terminal: \(line)")
        }
        guard let summary = shown.range(of: "Scanned:"), let last = shown.range(of: "scanning: ", options: .backwards) else { return }
        #expect(last.lowerBound < summary.lowerBound)
    }

    @Test("scan of a directory that holds no mail says so once, exit 66")
    func scanWithoutMail() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        try Data("notes\n".utf8).write(to: URL(fileURLWithPath: tmp.path + "/notes.txt"))
        try FileManager.default.createDirectory(atPath: tmp.path + "/empty", withIntermediateDirectories: true)
        let r = try ReservoirBinary.run(["scan", tmp.path + "/empty", "--store", "sqlite:\(tmp.path)/events.sqlite3"])
        #expect(r.status == 66, "\(r.stderr)")
        #expect(r.stderr.contains("neither a Maildir"), "\(r.stderr)")
        #expect(r.stderr.components(separatedBy: tmp.path + "/empty").count == 2, "the path more than once: \(r.stderr)")
    }
}
