import CommandCore
import EventStore
import Testing

/// The milter with docs/SITE.md's configuration as written: the `[accounts."…"]` tables name the
/// site's accounts, as for every other command, and a calendar template (which only an account
/// fills in, and which the milter never pushes to) does not stop it.
@Suite("The milter reads the site's configuration")
struct MilterSiteConfigurationTests {
    static let site = """
        store = "postgres://reservoir@db.example.org/reservoir"
        calendar = ["https://cal.example.org/{account}/reservations/"]
        [accounts."jane@example.org"]
        aliases = ["jane@home.example"]
        [accounts."joe@example.org"]

        """

    static func load(_ text: String) throws -> ConfigurationLoad {
        switch ConfigurationFile.parse(Array(text.utf8), path: "/etc/reservoir/config.toml", home: nil) {
        case .success(let file): return .loaded(file)
        case .failure(let problem):
            Issue.record("\(problem)")
            return .none
        }
    }

    @Test("the accounts tables are the milter's accounts; the calendar template is no problem of the milter's, though it is the filter's")
    func siteConfiguration() throws {
        guard case .run(let settings) = MilterSettings.read(["--socket", "unix:/run/reservoir/milter.sock"], configuration: try Self.load(Self.site))
        else {
            Issue.record("the milter does not start with the site's configuration")
            return
        }
        #expect(settings.account(forRecipient: "<jane@example.org>")?.address == "jane@example.org")
        #expect(settings.account(forRecipient: "<JOE@example.org>")?.address == "joe@example.org")
        #expect(settings.account(forRecipient: "<someone@example.org>") == nil)
        #expect(settings.hook.milterSettingsProblem == nil)
        // The filter, run for one message without --account, would push to the template: refused.
        #expect(settings.hook.settingsProblem?.contains("template") == true)
    }

    @Test("command-line accounts add to the tables; without either the milter names every way to give them")
    func accountsFromBoth() throws {
        guard
            case .run(let settings) = MilterSettings.read(
                ["--socket", "unix:/run/m.sock", "--account", "ann@example.org"], configuration: try Self.load(Self.site))
        else {
            Issue.record("not started")
            return
        }
        #expect(settings.account(forRecipient: "<ann@example.org>") != nil && settings.account(forRecipient: "<jane@example.org>") != nil)
        guard
            case .usage(let message) = MilterSettings.read(
                ["--socket", "unix:/run/m.sock"], configuration: try Self.load("store = \"sqlite:/tmp/x\"\n"))
        else {
            Issue.record("started without accounts")
            return
        }
        #expect(message.contains("[accounts.") && message.contains("--account"))
    }
}
