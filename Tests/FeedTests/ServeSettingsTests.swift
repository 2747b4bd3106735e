import Testing

@testable import Feed

@Suite("reservoir serve's arguments")
struct ServeSettingsTests {
    @Test("defaults, both spellings of values, and listen addresses")
    func reading() {
        guard case .run(let plain) = ServeSettings.read([]) else { return #expect(Bool(false)) }
        #expect(plain.listen == ListenAddress(host: "127.0.0.1", port: 8645))
        guard case .run(let settings) = ServeSettings.read(["--listen=[::1]:9000", "--store", "sqlite:/x", "--now", "2026-11-22T12:00:00Z"])
        else { return #expect(Bool(false)) }
        #expect(settings.listen == ListenAddress(host: "::1", port: 9000) && settings.listen.isLoopback)
        #expect(settings.store == "sqlite:/x" && settings.now == "2026-11-22T12:00:00Z")
        #expect(ServeSettings.read(["--help"]) == .help)
    }

    @Test(
        "a non-loopback address needs a token, credentials or --no-auth",
        arguments: [
            (["--listen", "0.0.0.0:8645"], false), (["--listen", "192.0.2.1:80"], false), (["--listen", "cal.example:80"], false),
            (["--listen", "0.0.0.0:8645", "--no-auth"], true), (["--listen", "0.0.0.0:8645", "--token-file", "t"], true),
            (["--listen", "0.0.0.0:8645", "--netrc", "n"], true), (["--listen", "127.8.9.10:1"], true),
            (["--listen", "localhost:1"], true),
        ])
    func loopback(arguments: [String], runs: Bool) {
        if case .run = ServeSettings.read(arguments) { #expect(runs) } else { #expect(!runs) }
    }

    @Test("--server-name, repeatable: the names a request's Host may carry besides the listen address")
    func serverNames() {
        guard case .run(let settings) = ServeSettings.read(["--server-name", "cal.example.org", "--server-name=[fd00::1]"]) else {
            return #expect(Bool(false))
        }
        #expect(settings.serverNames == ["cal.example.org", "[fd00::1]"])
        let hosts = ServedHosts(listen: settings.listen, serverNames: settings.serverNames)
        #expect(hosts.check("CAL.example.org:8645") == .served && hosts.check("[fd00::1]") == .served)
        #expect(hosts.check("127.0.0.1:8645") == .served && hosts.check("other.example.org") == .foreign)
    }

    @Test(
        "usage errors",
        arguments: [
            ["--listen", "8645"], ["--listen", "h:99999"], ["--listen", "::1:80"], ["--listen"], ["--bogus"],
            ["--netrc-machine", "m"], ["--no-auth=yes"], ["extra"], ["--server-name"], ["--server-name", "cal.example:443"],
            ["--server-name", "cal example"], ["--server-name", ""], ["--server-name", "::1"], ["--server-name", "user@cal.example"],
            ["--server-name", "[::1]:443"],
        ])
    func usage(arguments: [String]) {
        guard case .usage = ServeSettings.read(arguments) else { return #expect(Bool(false), "\(arguments)") }
    }
}
