import CommandCore
import Testing

@Suite("~ and $HOME in path settings")
struct HomePathTests {
    @Test(
        "a leading ~ or $HOME is expanded, after sqlite: and vdir: too; other forms stay as written",
        arguments: [
            (CommonOption.store, "sqlite:~/events.sqlite3", "sqlite:/home/jane/events.sqlite3"),
            (.store, "sqlite://$HOME/events.sqlite3", "sqlite:///home/jane/events.sqlite3"),
            (.store, "~/events.sqlite3", "/home/jane/events.sqlite3"),
            (.store, "postgres://jane@db/~x", "postgres://jane@db/~x"),
            (.calendar, "vdir:~/.calendars/reservations", "vdir:/home/jane/.calendars/reservations"),
            (.calendar, "vdir:${HOME}/cal", "vdir:/home/jane/cal"),
            (.calendar, "https://cal.example/~jane/", "https://cal.example/~jane/"),
            (.keys, "~", "/home/jane"),
            (.retrySpool, "$HOME/spool", "/home/jane/spool"),
            (.keys, "~jane/keys", "~jane/keys"),
            (.keys, "$HOMEWARD/keys", "$HOMEWARD/keys"),
            (.keys, "/etc/~/keys", "/etc/~/keys"),
            (.allowDomain, "~", "~"),
            (.me, "~/x", "~/x"),
        ])
    func expand(option: CommonOption, value: String, expanded: String) {
        #expect(HomePath.expand(option, value, home: "/home/jane") == expanded)
        #expect(HomePath.expand(option, value, home: "/home/jane/") == expanded)
    }

    @Test("without a home nothing is expanded")
    func noHome() {
        #expect(HomePath.expand(.calendar, "vdir:~/cal", home: nil) == "vdir:~/cal")
    }
}
