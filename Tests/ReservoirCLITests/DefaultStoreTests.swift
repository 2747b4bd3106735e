import Foundation
import Testing

/// Where the store goes when `--store` is not given, as a mail system starts reservoir: a
/// Postfix `pipe`, cron or a systemd unit may give it no `HOME`.
@Suite("the default store without a home directory")
struct DefaultStoreTests {
    static func ingest(environment: [String: String], in directory: String, extra: [String] = []) throws -> ReservoirBinary.Result {
        let process = Process()
        process.executableURL = ReservoirBinary.executable
        process.arguments =
            ["ingest", "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now] + extra
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let input = Pipe()
        let err = Pipe()
        process.standardInput = input
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(try ReservoirBinary.sampleMessage(1))
        try input.fileHandleForWriting.close()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return ReservoirBinary.Result(status: process.terminationStatus, stdout: Data(), stderr: stderr)
    }

    @Test(
        "without HOME or XDG_DATA_HOME nothing is created where the process starts; exit 78 (EX_CONFIG) with what to do",
        arguments: [
            [:], ["HOME": ""], ["HOME": "/"], ["HOME": "relative/dir"], ["XDG_DATA_HOME": "relative"],
        ])
    func noHome(environment: [String: String]) throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let r = try Self.ingest(environment: environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a }, in: tmp.path)
        #expect(r.status == 78, "\(r.stderr)")
        #expect(r.stderr.contains("--store"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).isEmpty)
    }

    @Test("with HOME the default store is made under it")
    func withHome() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let r = try Self.ingest(environment: ["HOME": tmp.path], in: "/")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: tmp.path + "/.local/share/reservoir/events.sqlite3"))
    }

    @Test("a store URL of no known kind is a configuration error (78), which an MTA does not retry forever")
    func unknownScheme() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let r = try Self.ingest(environment: ["HOME": tmp.path], in: tmp.path, extra: ["--store", "mysql://localhost/events"])
        #expect(r.status == 78, "\(r.stderr)")
        #expect(r.stderr.contains("unknown store URL"))
    }
}
