import Foundation
import Testing

/// `~` and `$HOME` in path settings, as a person writes them where no shell expands them
/// (`vdir:~/…`, `sqlite:~/…`, a TOML string), and the refusal of a calendar path left relative.
@Suite("paths in settings: ~ and $HOME expanded, a relative calendar refused")
struct PathSettingCLITests {
    static let options = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]

    /// A home and a different working directory, removed afterwards.
    struct Places {
        let home: TemporaryDirectory
        let work: TemporaryDirectory
        init() throws {
            home = try TemporaryDirectory()
            work = try TemporaryDirectory()
        }
        func remove() {
            home.remove()
            work.remove()
        }
        func entries(_ path: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

        /// A store holding sample 1's booking, under the home.
        func store() throws -> String {
            let store = "sqlite:\(home.path)/events.sqlite3"
            let r = try ReservoirBinary.run(["scan", try ReservoirBinary.sample(1), "--store", store] + PathSettingCLITests.options)
            #expect(r.status == 0, "\(r.stderr)")
            return store
        }
    }

    @Test(
        "scan --store 'sqlite:~/…' --calendar 'vdir:~/…' writes under HOME, nothing in the working directory",
        arguments: ["~", "$HOME", "${HOME}"])
    func commandLine(prefix: String) throws {
        let places = try Places()
        defer { places.remove() }
        let r = try ReservoirBinary.run(
            ["scan", try ReservoirBinary.sample(1), "--store", "sqlite:\(prefix)/events.sqlite3", "--calendar", "vdir:\(prefix)/cal"]
                + Self.options, environment: ["HOME": places.home.path, "RESERVOIR_CONFIG": ""], directory: places.work.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(places.entries(places.work.path).isEmpty, "written in the working directory: \(places.entries(places.work.path))")
        #expect(places.entries(places.home.path + "/cal").filter { $0.hasSuffix(".ics") }.count == 1, "\(places.entries(places.home.path))")
        #expect(FileManager.default.fileExists(atPath: places.home.path + "/events.sqlite3"))
    }

    @Test("the configuration file's ~ and $HOME in store, calendar, retry-spool and file keys: reservoir config shows the paths")
    func configurationFile() throws {
        let places = try Places()
        defer { places.remove() }
        try FileManager.default.copyItem(atPath: ReservoirBinary.keys, toPath: places.home.path + "/keys.zone")
        let config = places.work.path + "/config.toml"
        try """
        store = "sqlite:~/data/events.sqlite3"
        calendar = ["vdir:$HOME/.calendars/reservations"]
        retry-spool = "${HOME}/retry"
        keys = "~/keys.zone"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let r = try ReservoirBinary.run(["config"], environment: ["HOME": places.home.path, "RESERVOIR_CONFIG": config])
        #expect(r.status == 0, "\(r.stderr)")
        let home = places.home.path
        for expected in [
            "\"sqlite:\(home)/data/events.sqlite3\"", "[\"vdir:\(home)/.calendars/reservations\"]", "\"\(home)/retry\"",
            "\"\(home)/keys.zone\"",
        ] {
            #expect(r.text.contains(expected), "\(expected) not in:\n\(r.text)")
        }
        #expect(!r.text.contains("~") && !r.text.contains("$HOME"), "\(r.text)")
    }

    @Test("reservoir config shows the default store, spool and netrc as the paths they come to, not as variables")
    func defaults() throws {
        let places = try Places()
        defer { places.remove() }
        let r = try ReservoirBinary.run(
            ["config"], environment: ["HOME": places.home.path, "RESERVOIR_CONFIG": ""], removing: ["XDG_DATA_HOME", "XDG_STATE_HOME"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.text.split(separator: "\n").map(String.init)
        func line(_ key: String) -> String { lines.first { $0.hasPrefix(key + " ") } ?? "" }
        let home = places.home.path
        #expect(line("store").contains("= \"sqlite:\(home)/.local/share/reservoir/events.sqlite3\""), "\(r.text)")
        #expect(line("retry-spool").contains("= \"\(home)/.local/state/reservoir/retry\""), "\(r.text)")
        #expect(line("netrc").contains("= \"\(home)/.netrc\""), "\(r.text)")
        #expect(!r.text.contains("$XDG"), "\(r.text)")
    }

    @Test("a relative calendar path is refused before anything is written: on the command line (64) and in the file (78, with its line)")
    func relativeCalendar() throws {
        let places = try Places()
        defer { places.remove() }
        let store = try places.store()
        let given = try ReservoirBinary.run(
            ["sync", "--store", store, "--calendar", "vdir:cal"], environment: ["HOME": places.home.path], directory: places.work.path)
        #expect(given.status == 64, "\(given.stderr)")
        #expect(given.stderr.contains("absolute directory") && given.stderr.contains("vdir:cal"), "\(given.stderr)")
        #expect(places.entries(places.work.path).isEmpty)

        let config = places.home.path + "/config.toml"
        try "timeout = 5\ncalendar = [\"vdir:reservations\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try ReservoirBinary.run(["config", "--check", config])
        #expect(checked.status == 78, "\(checked.stderr)")
        #expect(checked.stderr.contains("\(config):2:") && checked.stderr.contains("absolute directory"), "\(checked.stderr)")
    }

    @Test("without HOME, vdir:~/… is refused with the reason, and no folder called ~ appears")
    func noHome() throws {
        let places = try Places()
        defer { places.remove() }
        let r = try ReservoirBinary.run(
            ["sync", "--store", try places.store(), "--calendar", "vdir:~/cal"],
            environment: ["RESERVOIR_CONFIG": ""], directory: places.work.path, removing: ["HOME", "XDG_DATA_HOME"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("HOME"), "\(r.stderr)")
        #expect(places.entries(places.work.path).isEmpty, "\(places.entries(places.work.path))")
    }
}
