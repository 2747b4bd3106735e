import Foundation
import Testing

@testable import CommandCore

/// The calendar settings a run uses, and the checks made before anything is recorded.
@Suite("CalendarPusher: the calendars of a run, checked first")
struct CalendarPusherTests {
    static func file(_ text: String) throws -> ConfigurationFile {
        try ConfigurationFile.parse(Array(text.utf8), path: "/etc/reservoir/config.toml", home: "/home/jane").get()
    }

    @Test("--no-calendar empties the calendars of the file and of the command line, for this run only")
    func noCalendar() throws {
        let file = try Self.file(#"calendar = ["vdir:/home/jane/.calendars/reservations"]"#)
        #expect(EffectiveSettings(file: file, commandLine: [:]).calendars.calendars == ["vdir:/home/jane/.calendars/reservations"])
        let off = EffectiveSettings(file: file, commandLine: [.noCalendar: .flag(true), .calendar: .texts(["vdir:/tmp/x"])]).calendars
        #expect(off.calendars.isEmpty)
        #expect(off.skipped)
        #expect(try CalendarPusher.open(off) == nil)
        let hook = try #require(FilterHook(arguments: ["--no-calendar"], configuration: .loaded(file)))
        #expect(hook.calendars.calendars.isEmpty)
    }

    @Test(
        "a --calendar that cannot work is refused without opening anything",
        arguments: ["", "cal.example/dav/", "ftp://cal.example/dav/", "https://cal.example/dav/?x=1", "vdir:"])
    func malformed(_ text: String) {
        #expect(throws: UsageError.self) { try CalendarPusher.check(CalendarSettings(calendars: [text])) }
    }

    @Test("credentials in a URL are refused, and the message does not repeat them")
    func credentials() throws {
        #expect(CalendarPusher.withoutCredentials("https://jane:s3cret@cal.example/dav/") == "https://…@cal.example/dav/")
        #expect(CalendarPusher.withoutCredentials("https://cal.example/dav/@x/") == nil, "an @ in the path is no user information")
        #expect(CalendarPusher.withoutCredentials("vdir:/home/jane@home/cal") == nil)
        #expect(CalendarPusher.withoutCredentials("https://jane@cal.example/dav/") == nil, "a login alone is no secret: it picks the netrc entry")
        do {
            try CalendarPusher.check(CalendarSettings(calendars: ["https://jane:s3cret@cal.example/dav/"]))
            Issue.record("accepted")
        } catch {
            #expect(!"\(error)".contains("s3cret"), "\(error)")
        }
    }

    @Test("the netrc and CA files of a CalDAV calendar are checked; a vdir and valid files pass")
    func files() throws {
        let directory = NSTemporaryDirectory() + "reservoir-calendar-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let netrc = directory + "/netrc"
        try #require(
            FileManager.default.createFile(
                atPath: netrc, contents: Data("default login jane password x\n".utf8), attributes: [.posixPermissions: 0o600]),
            "cannot write \(netrc)")
        let url = "https://cal.example/dav/"
        try CalendarPusher.check(CalendarSettings(calendars: [url, "vdir:\(directory)/cal"], netrcFile: netrc))
        #expect(!FileManager.default.fileExists(atPath: directory + "/cal"), "checking makes no directory")
        #expect(throws: CommandFailure.self) {
            try CalendarPusher.check(CalendarSettings(calendars: [url], netrcFile: netrc, caFile: directory + "/missing.pem"))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: netrc)
        #expect(throws: CommandFailure.self) { try CalendarPusher.check(CalendarSettings(calendars: [url], netrcFile: netrc)) }
        // A vdir needs no netrc: the open file does not matter to it.
        try CalendarPusher.check(CalendarSettings(calendars: ["vdir:\(directory)/cal"], netrcFile: netrc))
    }
}
