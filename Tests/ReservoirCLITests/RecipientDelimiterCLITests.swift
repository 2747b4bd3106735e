import Foundation
import PostgresTestSupport
import Testing

extension ProcessSuites {
    /// `--account` with a detail (`jane+trips@`, as a Postfix `pipe` hands `${mailbox}`) through
    /// both filter programs: the listed account `jane@`'s booking, beside plain `jane@`; with
    /// `--recipient-delimiter=` (none) not hers; a delimiter that is a letter is a usage error.
    /// And a confirmation whose signed To is `jane+trips@` binds to Jane (`--account`, `--me`),
    /// one to `joe+trips@` does not.
    @Suite("--account jane+trips@ is the listed account jane@")
    struct RecipientDelimiterCLITests {
        /// Cascadia Air's flight confirmation addressed to `to`, signed as the samples are
        /// (`scripts/samples`, the sample key of `cascadia-air.example`).
        static func flight(to: String) throws -> Data {
            let source = ReservoirBinary.packageRoot.appendingPathComponent("scripts/samples/04-cascadia-air-flight.eml")
            let text = try String(contentsOf: source, encoding: .utf8)
            let unsigned = text.replacingOccurrences(of: "\nTo: jane@home.example", with: "\nTo: Jane <\(to)>")
            #expect(unsigned != text)
            let key = ReservoirBinary.packageRoot.appendingPathComponent("scripts/samples/sample-dkim-key.pem").path
            let signed = try ReservoirBinary.run(
                ["sign", "--key", key, "--domain", "cascadia-air.example", "--selector", "s2026", "--timestamp", "1795000000"],
                stdin: Data(unsigned.utf8))
            #expect(signed.status == 0, "\(signed.stderr)")
            return signed.stdout
        }

        @Test("a confirmation signed to jane+trips@ is Jane's booking (--account, --me), not with the delimiter off; one to joe+trips@ is not hers")
        func detailBinding() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let empty = tmp.path + "/config.toml"
            try "".write(toFile: empty, atomically: true, encoding: .utf8)
            func recorded(_ message: Data, _ binding: [String]) throws -> Bool {
                let r = try ReservoirBinary.run(
                    [
                        "filter", "--no-store", "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now",
                        ReservoirBinary.now,
                    ]
                        + binding, stdin: message, environment: ["RESERVOIR_CONFIG": empty])
                #expect(r.status == 0, "\(r.stderr)")
                return r.text.contains("X-Reservation: ") && !r.text.contains("(untrusted)")
            }
            let detail = try Self.flight(to: "jane+trips@home.example")
            let plain = try Self.flight(to: "jane@home.example")
            let other = try Self.flight(to: "joe+trips@home.example")
            for binding in [["--account", "jane@home.example"], ["--me", "jane@home.example"]] {
                #expect(try recorded(plain, binding), "the control: \(binding)")
                #expect(try recorded(detail, binding), "\(binding)")
                #expect(try !recorded(detail, binding + ["--recipient-delimiter", ""]), "\(binding) with the delimiter off")
                #expect(try !recorded(other, binding), "\(binding): Joe's detail address is not Jane's")
            }
        }

        /// `executable` (nil: `reservoir filter`) on sample 1 for `account`, with `extra`; Jane's
        /// bookings in the store afterwards.
        static func filed(_ account: String, _ extra: [String], executable: URL?, in tmp: String) throws -> (status: Int32, jane: [String]) {
            let config = tmp + "/config.toml"
            try "[accounts.\"jane@home.example\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
            let store = "sqlite:\(tmp)/\(UUID().uuidString).sqlite3"
            let r = try ReservoirBinary.run(
                (executable == nil ? ["filter"] : []) + [
                    "--account", account, "--store", store, "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                    "--now", ReservoirBinary.now, "--authserv-id", "mx.test",
                ] + extra, stdin: try ReservoirBinary.sampleMessage(1), environment: ["RESERVOIR_CONFIG": config],
                executable: executable ?? ReservoirBinary.executable)
            guard r.status == 0, FileManager.default.fileExists(atPath: String(store.dropFirst("sqlite:".count))) else { return (r.status, []) }
            return (r.status, try PostfixTests.stored(store, account: "jane@home.example"))
        }

        @Test("reservoir filter and reservoir-filter file jane+trips@ under the listed jane@, as plain jane@; not with the delimiter off")
        func detailAccount() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            for executable in [nil, ReservoirBinary.filterExecutable] {
                let plain = try Self.filed("jane@home.example", [], executable: executable, in: tmp.path)
                #expect(plain.status == 0 && !plain.jane.isEmpty, "the control: plain jane@ is hers")
                let detail = try Self.filed("jane+trips@home.example", [], executable: executable, in: tmp.path)
                #expect(detail.status == 0 && detail.jane == plain.jane, "\(detail.jane) against \(plain.jane)")
                let dash = try Self.filed("jane-trips@home.example", ["--recipient-delimiter", "+-"], executable: executable, in: tmp.path)
                #expect(dash.jane == plain.jane, "with +- a dash starts a detail too")
                let off = try Self.filed("jane+trips@home.example", ["--recipient-delimiter="], executable: executable, in: tmp.path)
                #expect(off.status == 0 && off.jane.isEmpty, "with the delimiter off jane+trips@ is an account of its own: \(off.jane)")
                let letter = try Self.filed("jane+trips@home.example", ["--recipient-delimiter", "x"], executable: executable, in: tmp.path)
                #expect(letter.status == 64)
            }
        }
    }
}
