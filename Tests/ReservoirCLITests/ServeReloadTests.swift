import Foundation
import Glibc
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites.ServeCLITests {
    @Test(
        "SIGHUP rereads the token file: a new account's token opens its page, a revoked one is 404, a token file left open is refused and the old one kept",
        .enabled(if: Requirement.met(hasCurl), "curl is not installed (apt-get install curl)"))
    func reloadsTokens() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = "sqlite:\(tmp.path)/site.sqlite3"
        let environment = try ProcessSuites.AccountsCLITests.siteConfiguration(in: tmp.path)
        for (account, sample) in [("jane@example.org", 1), ("joe@example.org", 4)] {
            let r = try ReservoirBinary.run(
                [
                    "ingest", try ReservoirBinary.sample(sample), "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                    "--store", store, "--account", account, "--now", ReservoirBinary.now,
                ], environment: environment)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let jane = "jane-phone-0123456789"
        let joe = "joe-token-0123456789ab"
        let tokenFile = tmp.path + "/tokens"
        func write(_ lines: [String], mode: mode_t = 0o600) throws {
            try (lines.joined(separator: "\n") + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
            chmod(tokenFile, mode)
        }
        try write(["\(jane) jane@example.org"])
        let server = try Server(["--store", store, "--token-file", tokenFile], tmp: tmp, environment: environment)
        defer { server.stop() }
        func status(_ token: String) throws -> Int { try Self.curl(server.base + "/\(token)/", tmp: tmp).status }
        func logged(_ text: String, times: Int = 1) -> Bool {
            let until = Date().addingTimeInterval(10)
            while Date() < until, server.log.components(separatedBy: text).count - 1 < times { usleep(50_000) }
            return server.log.components(separatedBy: text).count - 1 >= times
        }
        #expect(try status(jane) == 200)
        #expect(try status(joe) == 404)

        // Joe's token added and Jane's phone revoked: both take effect without a restart.
        try write(["\(joe) joe@example.org"])
        kill(server.process.processIdentifier, SIGHUP)
        try #require(logged("reloaded: "), "\(server.log)")
        #expect(try status(joe) == 200)
        #expect(try status(jane) == 404, "a revoked token opens nothing")
        #expect(!server.log.contains(joe), "the token is never printed: \(server.log)")

        // A token file others may read: refused, the tokens in use stay.
        try write(["\(joe) joe@example.org", "\(jane) jane@example.org"], mode: 0o644)
        kill(server.process.processIdentifier, SIGHUP)
        try #require(logged("reload refused, the settings in use are kept"), "\(server.log)")
        #expect(server.log.contains("chmod 600"), "\(server.log)")
        #expect(try status(joe) == 200)
        #expect(try status(jane) == 404)
        #expect(server.process.isRunning)
        #expect(server.stop() == 0, "\(server.log)")
    }

    @Test(
        "a PostgreSQL store that does not answer stops serve at start with 75, named; an SQLite store not made yet waits",
        .enabled(if: Requirement.met(hasCurl), "curl is not installed (apt-get install curl)"))
    func storeAtStart() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let closed = try LoopbackPort.free()
        let refused = try ReservoirBinary.run(
            [
                "serve", "--listen", "127.0.0.1:\(try LoopbackPort.free())", "--store",
                "postgres://reservoir@127.0.0.1:\(closed)/reservoir?connect_timeout=2",
            ])
        #expect(refused.status == 75 && refused.stderr.contains("the store cannot be used"), "\(refused.stderr)")
        let server = try Server(["--store", "sqlite:\(tmp.path)/not-yet.sqlite3"], tmp: tmp)
        defer { server.stop() }
        #expect(server.log.contains("cannot be read yet"), "\(server.log)")
        #expect(try Self.curl(server.base + "/", tmp: tmp).status == 503)
    }
}
