import Foundation
import Testing

/// What the calendar and store commands print: never a password from a URL (whatever the
/// path that refuses or shows it), and events named as a person knows them.
@Suite("output: no secret echoed, events named by title and time")
struct SecretsAndNamesCLITests {
    static let secret = "s3cretPassw0rd"
    static let options = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]

    /// A store holding sample 1's booking.
    static func store(in tmp: TemporaryDirectory) throws -> String {
        let store = "sqlite:\(tmp.path)/events.sqlite3"
        let r = try ReservoirBinary.run(["scan", try ReservoirBinary.sample(1), "--store", store] + Self.options)
        #expect(r.status == 0, "\(r.stderr)")
        return store
    }

    @Test(
        "a URL with a password is refused without showing it: --calendar on sync, scan and the filter, a store URL of no known kind",
        arguments: [
            "sync --calendar https://jane:{secret}@cal.example/dav/jane/",
            "sync --calendar jane:{secret}@cal.example/dav/",
            "sync --calendar https://jane:{secret}@cal.example/dav/?x=1",
            "scan --calendar https://jane:{secret}@cal.example/dav/jane/",
            "filter --calendar https://jane:{secret}@cal.example/dav/jane/",
            "scan --store mysql://jane:{secret}@db.example/events",
        ])
    func refusedWithoutEcho(command: String) throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let words = command.split(separator: " ").map { $0.replacingOccurrences(of: "{secret}", with: Self.secret) }
        var arguments = words
        // The filter pushes what it changed: a store of its own, empty.
        if !command.contains("--store") {
            arguments += ["--store", words[0] == "filter" ? "sqlite:\(tmp.path)/new.sqlite3" : try Self.store(in: tmp)]
        }
        if words[0] == "scan" { arguments.insert(try ReservoirBinary.sample(1), at: 1) }
        if words[0] != "sync" { arguments += Self.options + ["--rescan"].filter { _ in words[0] == "scan" } }
        let r = try ReservoirBinary.run(arguments, stdin: words[0] == "filter" ? try ReservoirBinary.sampleMessage(1) : nil)
        #expect(r.status != 0 || words[0] == "filter", "\(command): \(r.status)")
        #expect(!r.stderr.isEmpty, "\(command): said nothing")
        #expect(!r.stderr.contains(Self.secret) && !r.text.contains(Self.secret), "\(command) echoed the password: \(r.stderr)")
    }

    @Test("the configuration file: a calendar URL with a password is refused at its line, a PostgreSQL password never shown by config")
    func configurationFile() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let bad = tmp.path + "/bad.toml"
        try "calendar = [\"https://jane:\(Self.secret)@cal.example/dav/\"]\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let checked = try ReservoirBinary.run(["config", "--check", bad])
        #expect(checked.status == 78 && checked.stderr.contains("\(bad):1:"), "\(checked.stderr)")
        #expect(!checked.stderr.contains(Self.secret), "\(checked.stderr)")

        let good = tmp.path + "/good.toml"
        try "store = \"postgres://reservoir:\(Self.secret)@db.example/events?sslmode=require\"\n".write(
            toFile: good, atomically: true, encoding: .utf8)
        let shown = try ReservoirBinary.run(["config"], environment: ["RESERVOIR_CONFIG": good])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.text.contains("postgres://reservoir:***@db.example/events?sslmode=require"), "\(shown.text)")
        #expect(!shown.text.contains(Self.secret))
        let given = try ReservoirBinary.run(["config", "--store", "postgres://db.example/events?password=\(Self.secret)"])
        #expect(given.text.contains("password=***") && !given.text.contains(Self.secret), "\(given.text)")
    }

    @Test("sync names each event by its title, time and booking, not by its percent-encoded UID")
    func syncNames() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = "sqlite:\(tmp.path)/events.sqlite3"
        let flight = try ReservoirBinary.run(["scan", try ReservoirBinary.sample(4), "--store", store] + Self.options)
        #expect(flight.status == 0, "\(flight.stderr)")
        let r = try ReservoirBinary.run(["sync", "--store", store, "--calendar", "vdir:\(tmp.path)/calendar"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.text.split(separator: "\n").filter { $0.hasPrefix("created: ") }
        #expect(lines.count == 2, "\(r.text)")
        for line in lines {
            #expect(line.contains("#K7Q2PX") && line.contains("2031") && line.contains("→ vdir:"), "\(line)")
            #expect(!line.contains("%2D") && !line.contains("@reservoir"), "a UID: \(line)")
        }
        // The UID stays in --json, for scripts.
        let json = try ReservoirBinary.run(["sync", "--store", store, "--calendar", "vdir:\(tmp.path)/other", "--json"])
        #expect(json.text.contains("@reservoir"), "\(json.text)")
    }
}
