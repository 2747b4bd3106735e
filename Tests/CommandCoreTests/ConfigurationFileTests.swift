import EventStore
import Glibc
import ICalendar
import TOML
import Testing

@testable import CommandCore

/// The configuration file: its keys come from the option table, its errors name a line and a
/// column, and the command line wins over it.
@Suite("ConfigurationFile: keys, checks and the merge with the command line")
struct ConfigurationFileTests {
    static func parse(_ text: String, path: String = "/etc/reservoir/config.toml") -> Result<ConfigurationFile, ConfigurationProblem> {
        ConfigurationFile.parse(Array(text.utf8), path: path, home: "/home/jane")
    }

    @Test("every option has a key of its own type, or a reason the file may not set it", arguments: CommonOption.allCases)
    func everyOptionDecided(_ option: CommonOption) {
        #expect((option.fileType == nil) != (option.fileExclusion == nil), "\(option.rawValue)")
        #expect(option.fileType != nil || [.now, .noStore, .noCalendar, .allowUnverified, .allowAnyDomain].contains(option))
    }

    @Test("a typical file: values, their lines, and the settings they make")
    func typicalFile() throws {
        let file = try Self.parse(
            """
            # Jane's reservations
            allow-domain = ["epicsteak.example", ".airline.example"]
            me = ["jane@example.org"]
            store = "sqlite:/home/jane/.local/share/reservoir/events.sqlite3"
            dns-timeout = 3
            include-past = true
            """
        ).get()
        #expect(file.lines[.store] == 4)
        let settings = EffectiveSettings(file: file, commandLine: [:])
        #expect(settings.policy.allowDomain == ["epicsteak.example", ".airline.example"])
        #expect(settings.policy.me == ["jane@example.org"])
        #expect(settings.keys.dnsTimeout == 3)
        #expect(settings.flag(.includePast))
        #expect(settings.source(.store) == .file("/etc/reservoir/config.toml", line: 4))
        #expect(settings.source(.timeout) == .standard)
        #expect(settings.timeout == FilterHook.defaultTimeout)
    }

    @Test("the command line replaces a key, arrays whole")
    func commandLineWins() throws {
        let file = try Self.parse("allow-domain = [\"a.example\", \"b.example\"]\ntimeout = 9\n").get()
        let settings = EffectiveSettings(file: file, commandLine: [.allowDomain: .texts(["c.example"])])
        #expect(settings.policy.allowDomain == ["c.example"])
        #expect(settings.source(.allowDomain) == .commandLine)
        #expect(settings.timeout == 9 && settings.source(.timeout) == .file("/etc/reservoir/config.toml", line: 2))
        let hook = try #require(
            FilterHook(arguments: ["--allow-domain", "d.example", "--allow-domain=e.example"], configuration: .loaded(file)))
        #expect(hook.policy.allowDomain == ["d.example", "e.example"])
        #expect(hook.timeout == 9)
    }

    static let problems: [(String, ConfigurationProblem.Code, Int, Int)] = [
        ("storage = \"x\"", .unknownKey, 1, 1),
        ("\n\nallow-unverified = true", .unknownKey, 3, 1),
        ("now = \"2026-01-01T00:00:00Z\"", .unknownKey, 1, 1),
        ("no-store = true", .unknownKey, 1, 1),
        ("allow-domain = \"a.example\"", .wrongType, 1, 1),
        ("allow-domain = [\"a.example\", 3]", .wrongType, 1, 30),
        ("timeout = \"5\"", .wrongType, 1, 1),
        ("timeout = -1", .wrongValue, 1, 1),
        ("recipient-delimiter = \"x\"", .wrongValue, 1, 1),
        ("include-past = 1", .wrongType, 1, 1),
        ("allow-domain = [\"/etc/reservoir/allowed\"]", .wrongValue, 1, 17),
        ("allowed-domains = \"epicsteak.example\"", .wrongValue, 1, 1),
        ("keys = \"/nonexistent/keys.zone\"", .unreadableFile, 1, 1),
        ("store = \"x\"\nstore = \"y\"", .syntax, 2, 1),
        ("[store]\nx = 1", .wrongType, 1, 1),
        ("accounts = [\"jane@example.org\"]", .wrongType, 1, 1),
        ("watch = \"imaps://jane@imap.example.org/INBOX\"", .wrongType, 1, 1),
        ("watch = [\"imaps://jane@imap.example.org/INBOX\", 3]", .wrongType, 1, 1),
        ("[accounts.\"jane\"]\naliases = []", .wrongValue, 1, 1),
        ("[accounts.\"jane@example.org\"]\nstore = \"x\"", .unknownKey, 2, 1),
        ("[accounts.\"jane@example.org\"]\naliases = \"jane@example.net\"", .wrongType, 2, 1),
        ("[accounts.\"jane@example.org\"]\naliases = [\"jane\"]", .wrongValue, 2, 12),
        ("[accounts.\"jane@example.org\"]\nallow-domain = [\"/etc/x\"]", .wrongValue, 2, 17),
        ("[accounts.\"jane@example.org\"]\ncalendar = [\"vdir:relative/{local}\"]", .wrongValue, 2, 13),
        ("[accounts.\"jane@example.org\"]\n[accounts.\"jane@EXAMPLE.org\"]", .wrongValue, 2, 1),
    ]

    @Test("watch lists the mailboxes reservoir watch reads, in order")
    func watchList() throws {
        let file = try Self.parse("watch = [\"imaps://jane@imap.example.org/INBOX\", \"imaps://jane@imap.example.org/Travel\"]").get()
        #expect(file.watch == ["imaps://jane@imap.example.org/INBOX", "imaps://jane@imap.example.org/Travel"])
        #expect(try Self.parse("").get().watch.isEmpty)
        // An account's own list, apart from the site's.
        let site = try Self.parse(
            """
            watch = ["imaps://site@imap.example.org/INBOX"]
            [accounts."jane@example.org"]
            watch = ["imaps://jane@imap.example.org/INBOX"]
            [accounts."joe@example.org"]
            aliases = ["joe@example.net"]
            """
        ).get()
        #expect(site.watch == ["imaps://site@imap.example.org/INBOX"])
        #expect(site.accounts["jane@example.org"]?.watch == ["imaps://jane@imap.example.org/INBOX"])
        #expect(site.accounts["joe@example.org"]?.watch == [])
        #expect(throws: (any Error).self) { try Self.parse("[accounts.\"jane@example.org\"]\nwatch = \"imaps://jane@imap.example.org/INBOX\"").get() }
    }

    @Test("an account's table adds to the site's settings: its address and aliases bind its mail, its domains and calendars are its own")
    func accountSettings() throws {
        let file = try Self.parse(
            """
            allow-domain = ["epicsteak.example"]
            me = ["family@example.org"]
            calendar = ["https://dav.example.org/dav/calendars/{account}/reservations/"]

            [accounts."jane@Example.ORG"]
            aliases = ["j.appleseed@example.net", "@jane.example"]
            allow-domain = ["cascadia-air.example"]
            allow-pass-type = ["pass.com.example.boarding"]

            [accounts."joe@example.org"]
            calendar = ["vdir:~/calendars/{local}"]
            """
        ).get()
        #expect(file.accounts.keys.sorted() == ["jane@example.org", "joe@example.org"], "the domain lowercased, as --account reads it")
        let jane = EffectiveSettings(file: file, commandLine: [.account: .text("jane@example.org")])
        #expect(jane.policy.me == ["family@example.org", "jane@example.org", "j.appleseed@example.net", "@jane.example"])
        #expect(jane.policy.allowDomain == ["epicsteak.example", "cascadia-air.example"])
        #expect(jane.policy.allowPassType == ["pass.com.example.boarding"])
        #expect(jane.calendars.calendars == ["https://dav.example.org/dav/calendars/jane@example.org/reservations/"])
        // The local part in another case is the listed account, as the milter files it.
        let shouted = EffectiveSettings(file: file, commandLine: [.account: .text("JANE@example.org")])
        #expect(shouted.account == "jane@example.org")
        #expect(shouted.policy.allowDomain == ["epicsteak.example", "cascadia-air.example"])
        // Joe's own calendar replaces the site's; nothing else of Jane's is his.
        let joe = EffectiveSettings(file: file, commandLine: [.account: .text("joe@example.org")])
        #expect(joe.policy.me == ["family@example.org", "joe@example.org"])
        #expect(joe.policy.allowDomain == ["epicsteak.example"])
        #expect(joe.calendars.calendars == ["vdir:/home/jane/calendars/joe"])
        // An account without a table: its own address binds, the site's template is filled in.
        let sam = EffectiveSettings(file: file, commandLine: [.account: .text("sam@example.org"), .me: .texts([])])
        #expect(sam.policy.me == ["sam@example.org"])
        #expect(sam.calendars.calendars == ["https://dav.example.org/dav/calendars/sam@example.org/reservations/"])
        // The command line's calendar wins, and is filled in too.
        let given = EffectiveSettings(
            file: file, commandLine: [.account: .text("joe@example.org"), .calendar: .texts(["vdir:/tmp/{domain}/{local}"])])
        #expect(given.calendars.calendars == ["vdir:/tmp/example.org/joe"])
        // A single-user run: nothing added, and a template is left for the calendar check to refuse.
        let single = EffectiveSettings(file: file, commandLine: [:])
        #expect(single.policy.me == ["family@example.org"])
        #expect(single.calendars.calendars == ["https://dav.example.org/dav/calendars/{account}/reservations/"])
        #expect(throws: UsageError.self) { try CalendarPusher.check(single.calendars) }
    }

    @Test("--account with a detail is its base's listed account; as written when listed, unlisted, or with the delimiter off")
    func accountDetail() throws {
        let file = try Self.parse(
            """
            [accounts."joe@example.org"]
            allow-domain = ["cascadia-air.example"]

            [accounts."a+b@example.org"]
            """
        ).get()
        func account(_ given: String, delimiter: String? = nil) -> String? {
            var commandLine: [CommonOption: SettingValue] = [.account: .text(given)]
            if let delimiter { commandLine[.recipientDelimiter] = .text(delimiter) }
            return EffectiveSettings(file: file, commandLine: commandLine).account
        }
        #expect(account("joe+trips@example.org") == "joe@example.org")
        #expect(EffectiveSettings(file: file, commandLine: [.account: .text("joe+trips@example.org")]).policy.allowDomain == ["cascadia-air.example"])
        #expect(account("JOE+trips@example.org") == "joe@example.org")
        #expect(account("joe@example.org") == "joe@example.org")
        #expect(account("joe+trips@example.org", delimiter: "") == "joe+trips@example.org")
        #expect(account("joe-trips@example.org") == "joe-trips@example.org")
        #expect(account("joe-trips@example.org", delimiter: "-+") == "joe@example.org")
        #expect(account("a+b@example.org") == "a+b@example.org")
        #expect(account("sam+trips@example.org") == "sam+trips@example.org")
        #expect(account("+trips@example.org") == "+trips@example.org")
        let off = try Self.parse("recipient-delimiter = \"\"\n[accounts.\"joe@example.org\"]").get()
        #expect(EffectiveSettings(file: off, commandLine: [.account: .text("joe+trips@example.org")]).account == "joe+trips@example.org")
    }

    @Test("maildir: an account's own, else the site's template filled in; every table and stored account read once")
    func maildirs() throws {
        let file = try Self.parse(
            """
            maildir = "/var/vmail/{domain}/{local}/Maildir"
            [accounts."jane@example.org"]
            maildir = ["/srv/jane/Maildir", "~/Maildir"]
            [accounts."joe@example.org"]
            [accounts."ann@example.org"]
            maildir = "mail/ann"
            """
        ).get()
        #expect(file.maildir == ["/var/vmail/{domain}/{local}/Maildir"])
        let stored = [Account(normalizedAddress: "bob@example.net"), .implicit, Account(normalizedAddress: "jane@example.org")]
        let plan = AccountMaildirs.plan(file: file, stored: stored)
        #expect(plan.map(\.account.address) == ["ann@example.org", "bob@example.net", "jane@example.org", "joe@example.org"])
        #expect(plan.map(\.listed) == [true, false, true, true])
        #expect(
            plan.map(\.maildirs) == [
                ["/etc/reservoir/mail/ann"], ["/var/vmail/example.net/bob/Maildir"], ["/srv/jane/Maildir", "/home/jane/Maildir"],
                ["/var/vmail/example.org/joe/Maildir"],
            ])
        // Without a site template an account without its own has none.
        let bare = try Self.parse("[accounts.\"joe@example.org\"]").get()
        #expect(AccountMaildirs.maildirs(for: Account(normalizedAddress: "joe@example.org"), in: bare) == [])
        // … and an account only the store holds is not read at all.
        #expect(AccountMaildirs.plan(file: bare, stored: stored).map(\.account.address) == ["joe@example.org"])
        #expect(AccountMaildirs.maildirs(for: .implicit, in: file) == [])
    }

    @Test("a local part cannot make a maildir template leave its directory; an address as written is the control")
    func maildirEscape() throws {
        let file = try Self.parse(
            "maildir = \"/var/vmail/{domain}/{local}/Maildir\"\n[accounts.\"../../../etc@example.org\"]\n[accounts.\"..@example.org\"]"
        ).get()
        for account in ["../../../etc@example.org", "..@example.org", "a/b@example.org"].map(Account.init(normalizedAddress:)) {
            for path in AccountMaildirs.maildirs(for: account, in: file) {
                let segments = path.split(separator: "/")
                #expect(segments.count == 5 && path.hasPrefix("/var/vmail/example.org/") && path.hasSuffix("/Maildir"), "\(path)")
                #expect(!segments.contains("..") && !segments.contains("."), "\(path)")
            }
        }
        #expect(
            AccountMaildirs.maildirs(for: Account(normalizedAddress: "jane.doe@example.org"), in: file) == ["/var/vmail/example.org/jane.doe/Maildir"]
        )
    }

    @Test(
        "a maildir that is no directory, a site maildir without a placeholder, a wrong type: refused at its line",
        arguments: [
            ("maildir = \"/var/vmail/Maildir\"", ConfigurationProblem.Code.wrongValue, 1),
            ("maildir = 3", .wrongType, 1),
            ("maildir = [\"/var/vmail/{local}\", 3]", .wrongType, 1),
            ("[accounts.\"jane@example.org\"]\nmaildir = \"\"", .wrongValue, 2),
            ("[accounts.\"jane@example.org\"]\nmaildir = true", .wrongType, 2),
        ])
    func badMaildirs(_ text: String, _ code: ConfigurationProblem.Code, _ line: Int) {
        guard case .failure(let problem) = Self.parse(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(problem.code == code, "\(problem)")
        #expect(problem.position?.line == line, "\(problem)")
    }

    @Test("a local part cannot leave the directory or collection a template names")
    func templateComponents() {
        let odd = Account(normalizedAddress: "../x/y?z#w@example.org")
        #expect(AccountTemplate.expand("vdir:/cal/{local}", for: odd) == "vdir:/cal/%2E.%2Fx%2Fy%3Fz%23w")
        #expect(AccountTemplate.expand("https://dav.example/{account}/", for: odd) == "https://dav.example/%2E.%2Fx%2Fy%3Fz%23w@example.org/")
        #expect(AccountTemplate.expand("vdir:/cal/{local}", for: Account(normalizedAddress: "..@example.org")) == "vdir:/cal/%2E.")
        #expect(AccountTemplate.expand("vdir:/cal/{local}", for: .implicit) == "vdir:/cal/{local}")
    }

    @Test("unknown keys, wrong types and unreadable files are refused at their line and column", arguments: problems)
    func problem(_ text: String, _ code: ConfigurationProblem.Code, _ line: Int, _ column: Int) {
        guard case .failure(let problem) = Self.parse(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(problem.code == code, "\(problem)")
        #expect(problem.position?.line == line && problem.position?.column == column, "\(problem)")
        #expect(problem.description.hasPrefix("/etc/reservoir/config.toml:\(line):\(column): "))
    }

    @Test("relative file names are taken from the file's directory, ~/ from HOME")
    func fileNames() {
        #expect(ConfigurationFile.resolve("keys.zone", relativeTo: "/etc/reservoir/config.toml", home: nil) == "/etc/reservoir/keys.zone")
        #expect(ConfigurationFile.resolve("~/keys.zone", relativeTo: "/etc/reservoir/config.toml", home: "/home/jane") == "/home/jane/keys.zone")
        #expect(ConfigurationFile.resolve("/k", relativeTo: "/etc/reservoir/config.toml", home: nil) == "/k")
    }

    @Test("the locations, in order; RESERVOIR_CONFIG naming nothing is an error")
    func locations() {
        let env = ["HOME": "/home/jane"]
        #expect(ConfigurationFile.candidates { env[$0] } == ["/home/jane/.config/reservoir/config.toml", "/etc/reservoir/config.toml"])
        let xdg = ["HOME": "/home/jane", "XDG_CONFIG_HOME": "/cfg"]
        #expect(ConfigurationFile.candidates { xdg[$0] }.first == "/cfg/reservoir/config.toml")
        let named = ["RESERVOIR_CONFIG": "/nonexistent/config.toml"]
        #expect(ConfigurationFile.load { named[$0] }.problem?.code == .notFound)
    }

    @Test("a domain given as a file, or a path as a domain, names the option meant")
    func misplacedValues() {
        #expect(CommonOption.allowDomain.misuse(of: "/etc/reservoir/allowed")?.contains("--allowed-domains") == true)
        #expect(CommonOption.allowedDomains.misuse(of: "epicsteak.example")?.contains("--allow-domain") == true)
        #expect(CommonOption.allowDomain.misuse(of: "epicsteak.example") == nil)
        #expect(FilterHook(arguments: ["--allowed-domains", "epicsteak.example"], configuration: .none) == nil)
    }

    @Test("reminders: a table of a duration or \"off\" per category over the defaults, or false for none")
    func reminders() throws {
        let table = try Self.parse(
            """
            store = "sqlite:/x"
            [reminders]
            food = "PT3H"
            lodging = "off"
            """
        ).get()
        #expect(table.reminders?.leads[.food] == Int64(3 * 3600))
        #expect(table.reminders?.leads[.lodging] == nil)
        #expect(table.reminders?.leads[.event] == ReminderSettings.standard.leads[.event], "a category left out keeps its default")
        #expect(table.remindersLine == 2)
        #expect(ConfigurationLoad.loaded(table).calendarWriter.reminders == table.reminders)
        #expect(try Self.parse("reminders = false").get().reminders == .off)
        #expect(try Self.parse("reminders = true").get().reminders == .standard)
        #expect(try Self.parse("store = \"sqlite:/x\"").get().reminders == nil)
        #expect(ConfigurationLoad.none.calendarWriter.reminders == .standard)
    }

    @Test(
        "reminders that are not a category, a duration or a table are refused with their line",
        arguments: [
            ("[reminders]\nplane = \"PT2H\"", ConfigurationProblem.Code.unknownKey, 2),
            ("[reminders]\nfood = \"2 hours\"", .wrongValue, 2),
            ("[reminders]\nfood = \"P30D\"", .wrongValue, 2),
            ("[reminders]\nfood = 2", .wrongType, 2),
            ("reminders = \"off\"", .wrongType, 1),
        ])
    func badReminders(_ text: String, _ code: ConfigurationProblem.Code, _ line: Int) {
        guard case .failure(let problem) = Self.parse(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(problem.code == code)
        #expect(problem.position?.line == line)
    }
}
