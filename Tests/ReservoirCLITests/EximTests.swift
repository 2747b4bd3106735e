import Foundation
import Glibc
import PostgresTestSupport
import Testing

extension ProcessSuites {
    /// A real Exim (Debian's `exim4-daemon-light`) runs the recipe of docs/HOOKS.md: an `unseen`
    /// accept router copies each chosen user's mail to a `pipe` transport running `reservoir
    /// ingest --account $local_part_data@$domain_data -` as an unprivileged user; three users
    /// receive every sample, two of them chosen: Jane's account, whom the samples are addressed
    /// to, must hold what a scan records, Joe's nothing (his copies do not name him), Sam's none. Each sample is submitted with `exim4 -C CONFIG -odi` (delivered in
    /// the foreground, no daemon), with a private spool and log. Debian's Exim and Postfix
    /// packages conflict, so `.ci/run` unpacks Exim's package into `.build-release/exim/`
    /// (`RESERVOIR_EXIM` names another binary; an installed `/usr/sbin/exim4` is used too).
    @Suite("Exim pipe transport runs reservoir ingest")
    struct EximTests {
        static var exim: String? {
            let candidates = [
                ProcessInfo.processInfo.environment["RESERVOIR_EXIM"] ?? "",
                ReservoirBinary.packageRoot.appendingPathComponent(".build-release/exim/usr/sbin/exim4").path,
                "/usr/sbin/exim4",
            ]
            return candidates.first { !$0.isEmpty && FileManager.default.isExecutableFile(atPath: $0) }
        }

        static var available: Bool { getuid() == 0 && exim != nil && getpwnam("nobody") != nil }

        @Test(
            "every sample delivered by Exim reaches its addressee's account through the pipe transport, as a scan records them, and no one else's",
            .enabled(if: available, "needs root and exim4 (exim4-daemon-light, or its package unpacked by .ci/run)"))
        func samplesThroughExim() throws {
            let exim = try #require(Self.exim)
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            chmod(tmp.path, 0o755)
            let state = tmp.path + "/state"
            for dir in [tmp.path + "/spool", tmp.path + "/log", state] {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            }
            guard let nobody = getpwnam("nobody")?.pointee else { return }
            chown(state, nobody.pw_uid, nobody.pw_gid)
            let store = "sqlite:\(state)/events.sqlite3"
            // The programs and keys where `nobody` reaches them, wherever the checkout is.
            let copies = try ReservoirBinary.copiesForOtherUsers(in: tmp.path + "/reservoir")
            let command = [
                copies.executable, "ingest", "--account", "$local_part_data@$domain_data", "--store", store, "--retry-spool", state + "/retry",
                "--keys", copies.keys,
                "--allowed-domains", copies.allowed, "--now", ReservoirBinary.now, "-",
            ].joined(separator: " ")
            let group = String(cString: getgrgid(nobody.pw_gid).pointee.gr_name)
            let config = """
                exim_path = \(exim)
                spool_directory = \(tmp.path)/spool
                log_file_path = \(tmp.path)/log/%slog
                primary_hostname = mx.test
                exim_user = root
                exim_group = root
                trusted_users = root
                keep_environment =
                begin routers
                reservoir:
                  driver = accept
                  domains = home.example
                  local_parts = jane : joe
                  transport = reservoir
                  unseen
                deliver:
                  driver = redirect
                  data = :blackhole:
                begin transports
                reservoir:
                  driver = pipe
                  command = \(command)
                  user = nobody
                  group = \(group)
                  temp_errors = 75
                  return_fail_output
                  log_output
                begin retry
                *   *   F,1h,5m

                """
            try config.write(toFile: tmp.path + "/exim.conf", atomically: true, encoding: .utf8)
            let samples = try PostfixTests.allSamples()
            for sample in samples {
                let r = try ChildProcess.capture(
                    [
                        exim, "-C", tmp.path + "/exim.conf", "-odi", "-f", "sender@example.com", "jane@home.example", "joe@home.example",
                        "sam@home.example",
                    ],
                    stdin: sample)
                #expect(r.status == 0, "exim \(sample): \(String(decoding: r.stderr, as: UTF8.self))")
            }
            let log = (try? String(contentsOfFile: tmp.path + "/log/mainlog", encoding: .utf8)) ?? ""
            let piped = log.split(separator: "\n").filter { $0.contains("R=reservoir T=reservoir") }
            #expect(piped.count == 2 * samples.count, "\(piped.count) of \(2 * samples.count) copies went through the pipe:\n\(log.suffix(4000))")
            let reference = "sqlite:\(tmp.path)/reference.sqlite3"
            _ = try ReservoirBinary.run([
                "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                "--now", ReservoirBinary.now, "--store", reference, "--account", "jane@home.example",
            ])
            let expected = try PostfixTests.stored(reference, account: "jane@home.example")
            #expect(expected.count >= 5, "\(expected)")
            // Jane's account holds every booking; Joe's copy of mail addressed to Jane is not his
            // booking (recipient binding follows the account), so his account stays empty.
            let jane = try? PostfixTests.stored(store, account: "jane@home.example")
            #expect(jane == expected, "jane after Exim: \(jane ?? []); a scan: \(expected)\n\(log.suffix(4000))")
            #expect(try PostfixTests.stored(store, account: "joe@home.example").isEmpty)
            let accounts = try ReservoirBinary.run(["accounts", "--json", "--store", store])
            let listed = (try JSONSerialization.jsonObject(with: accounts.stdout) as? [[String: Any]] ?? []).map { $0["account"] as? String ?? "?" }
            #expect(listed == ["jane@home.example"], "no one else's account: \(accounts.text)")
            var info = stat()
            #expect(stat(state + "/events.sqlite3", &info) == 0 && info.st_uid == nobody.pw_uid)
        }
    }
}
