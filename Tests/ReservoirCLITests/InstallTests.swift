import Foundation
import Glibc
import PostgresTestSupport
import Testing

extension ProcessSuites {
    /// `scripts/install --destdir`: the programs, stripped; a manual page per command with every
    /// section, rendered by groff without a warning; completions bash loads; the example
    /// configuration; the units naming the installed programs. It takes the binaries this test
    /// run built (`--from`), so the test does not wait for a release build.
    @Suite("scripts/install")
    struct InstallTests {
        static let script = ReservoirBinary.packageRoot.appendingPathComponent("scripts/install").path
        static let sections = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"]

        static func tool(_ name: String) -> String? {
            ["/usr/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }

        static var available: Bool {
            tool("bash") != nil && tool("groff") != nil && tool("strip") != nil && tool("python3") != nil
                && FileManager.default.isExecutableFile(atPath: ReservoirBinary.filterExecutable.path)
                && FileManager.default.isExecutableFile(
                    atPath: ReservoirBinary.executable.deletingLastPathComponent().appendingPathComponent("reservoir-serve").path)
        }

        static func shell(_ command: String) throws -> (status: Int32, stdout: String, stderr: String) {
            let r = try ChildProcess.capture(["/bin/bash", "-c", command])
            return (r.status, String(decoding: r.stdout, as: UTF8.self), String(decoding: r.stderr, as: UTF8.self))
        }

        @Test(
            "install --destdir: stripped programs that run, man pages with every section, completions that load, config and units",
            .enabled(if: available, "needs bash, groff, strip (binutils), python3 and the three built programs"))
        func installTree() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let from = ReservoirBinary.executable.deletingLastPathComponent().path
            let r = try Self.shell("'\(Self.script)' --prefix /usr/local --destdir '\(tmp.path)' --from '\(from)'")
            try #require(r.status == 0, "install: \(r.stderr)")
            let root = tmp.path + "/usr/local"
            // reservoir-document is built where its libraries are, as here (.ci/run installs them).
            for program in ["reservoir", "reservoir-filter", "reservoir-serve", "reservoir-milter", "reservoir-document"] {
                let path = root + "/bin/" + program
                #expect(FileManager.default.isExecutableFile(atPath: path), "\(program) missing")
                let symbols = try Self.shell("readelf -S '\(path)' | grep -c ' .symtab' || true")
                #expect(symbols.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(program) is not stripped")
            }
            // The installed programs run: the version, and the hook on a sample.
            let version = try Self.shell("'\(root)/bin/reservoir' --version")
            #expect(version.status == 0 && !version.stdout.isEmpty, "\(version.stderr)")
            let sample = try ReservoirBinary.sample(1)
            let hook = try Self.shell(
                "'\(root)/bin/reservoir-filter' --keys '\(ReservoirBinary.keys)' --allowed-domains '\(ReservoirBinary.allowed)' --no-store --authserv-id mx.test < '\(sample)'"
            )
            #expect(hook.status == 0 && hook.stdout.hasPrefix("Authentication-Results: mx.test;"), "\(hook.stderr)")

            // A page per command, every section, no groff warning.
            let pages = try FileManager.default.contentsOfDirectory(atPath: root + "/share/man/man1").sorted()
            let commands =
                ["reservoir", "scan", "filter", "ingest", "banner", "verify", "extract", "parts", "events", "sync", "retry", "forget"]
                + ["watch", "add", "pending", "allow", "deny", "accounts", "serve", "milter", "sign", "config"]
            let wanted = commands.map { ($0 == "reservoir" ? "reservoir" : "reservoir-" + $0) + ".1.gz" }.sorted()
            #expect(pages == wanted, "\(pages)")
            for page in pages {
                let rendered = try Self.shell(
                    "zcat '\(root)/share/man/man1/\(page)' | groff -man -Tutf8 -ww 2>&1 >/dev/null; zcat '\(root)/share/man/man1/\(page)' | groff -man -Tascii -P-cbou"
                )
                #expect(rendered.status == 0)
                for section in Self.sections {
                    #expect(rendered.stdout.contains("\n" + section + "\n"), "\(page): no \(section) section")
                }
                // groff's own diagnostics ("troff: FILE:LINE: warning: …"), not the word in a page.
                #expect(!rendered.stdout.contains("warning:"), "\(page): \(rendered.stdout.prefix(300))")
            }
            if Self.tool("man") != nil {
                let man = try Self.shell("MANWIDTH=80 man -l '\(root)/share/man/man1/reservoir-retry.1.gz' 2>&1 | col -b")
                #expect(man.status == 0 && man.stdout.contains("EXIT STATUS") && man.stdout.contains("reservoir retry"), "\(man.stdout.prefix(500))")
            }

            // Completions: bash loads its script; zsh and fish get theirs.
            let bash = try Self.shell("source '\(root)/share/bash-completion/completions/reservoir' && complete -p reservoir")
            #expect(bash.status == 0 && bash.stdout.contains("reservoir"), "\(bash.stdout) \(bash.stderr)")
            let zsh = try String(contentsOfFile: root + "/share/zsh/vendor-completions/_reservoir", encoding: .utf8)
            #expect(zsh.hasPrefix("#compdef reservoir"), "\(zsh.prefix(80))")
            let fish = try String(contentsOfFile: root + "/share/fish/vendor_completions.d/reservoir.fish", encoding: .utf8)
            #expect(fish.contains("complete -c 'reservoir'"), "\(fish.prefix(80))")
            if let zshProgram = Self.tool("zsh") {
                let check = try Self.shell("'\(zshProgram)' -n '\(root)/share/zsh/vendor-completions/_reservoir'")
                #expect(check.status == 0, "\(check.stderr)")
            }

            // The overview's example works from the installed tree: its `cd` names the samples'
            // place under the prefix of the program that runs (here --prefix in --destdir), and
            // the manual page names it under --prefix.
            let overview = try Self.shell("COLUMNS=400 '\(root)/bin/reservoir' --help").stdout
            #expect(overview.contains("The reference pages are in \(root)/share/doc/reservoir"), "\(overview)")
            let lines = overview.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let cd = try #require(lines.first { $0.hasPrefix("cd \(root)/") }, "\(overview)")
            let tried = try #require(lines.first { $0.hasPrefix("reservoir banner") })
            let samples = String(cd.dropFirst("cd ".count))
            let page = try Self.shell("zcat '\(root)/share/man/man1/reservoir.1.gz'").stdout
            #expect(page.contains("/usr/local/share/doc/reservoir") && !page.contains(tmp.path), "\(page.prefix(2000))")
            for doc in ["SITE.md", "MAILBOXES.md", "SECURITY.md"] {
                #expect(FileManager.default.fileExists(atPath: root + "/share/doc/reservoir/" + doc), "\(doc) not installed")
            }
            #expect(FileManager.default.fileExists(atPath: samples + "/keys.zone"), "\(samples)")
            let banner = try Self.shell("cd '\(samples)' && '\(root)/bin/'\(tried)")
            #expect(banner.status == 0 && banner.stdout.contains("EPIC Steak") && banner.stdout.contains("epicsteak.example"), "\(banner.stderr)")

            // The example configuration is valid, and the units run the installed program.
            let config = root + "/share/doc/reservoir/config.toml"
            let checked = try ReservoirBinary.run(["config", "--check", config])
            #expect(checked.status == 0, "\(checked.stderr)")
            let unit = try String(contentsOfFile: root + "/lib/systemd/user/reservoir-retry.service", encoding: .utf8)
            #expect(unit.contains("ExecStart=/usr/local/bin/reservoir retry"), "\(unit)")
            #expect(FileManager.default.fileExists(atPath: root + "/lib/systemd/user/reservoir-sync.timer"))
            // A mail site's system units, naming the installed programs, with their reload.
            let milter = try String(contentsOfFile: root + "/lib/systemd/system/reservoir-milter.service", encoding: .utf8)
            #expect(milter.contains("ExecStart=/usr/local/bin/reservoir-milter") && milter.contains("ExecReload="), "\(milter)")
            #expect(FileManager.default.fileExists(atPath: root + "/lib/systemd/system/reservoir-sync.timer"))
        }
    }
}
