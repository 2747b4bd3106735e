import Foundation
import Testing

@Suite("reservoir-filter: the hook as a program of its own")
struct FilterExecutableTests {
    /// Runs `arguments` through `reservoir filter` and `reservoir-filter`, each with a store of
    /// its own; the `{store}` argument is replaced by that store.
    func both(_ arguments: [String], stdin: Data, in tmp: TemporaryDirectory)
        throws -> (command: ReservoirBinary.Result, program: ReservoirBinary.Result)
    {
        func run(_ name: String, _ executable: URL, prefix: [String]) throws -> ReservoirBinary.Result {
            let args = prefix + arguments.map { $0 == "{store}" ? "sqlite:\(tmp.path)/\(name).sqlite3" : $0 }
            return try ReservoirBinary.run(args, stdin: stdin, executable: executable)
        }
        return (
            try run("command", ReservoirBinary.executable, prefix: ["filter"]),
            try run("program", ReservoirBinary.filterExecutable, prefix: [])
        )
    }

    @Test("every sample: the same output, exit status and recorded events as reservoir filter", arguments: 1...10)
    func sameAsTheCommand(number: Int) throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let message = try ReservoirBinary.sampleMessage(number)
        let (command, program) = try both(
            [
                "--keys", ReservoirBinary.keys, "--allowed-domains=" + ReservoirBinary.allowed,
                "--store", "{store}", "--now", ReservoirBinary.now, "--authserv-id", "mx.test",
            ],
            stdin: message, in: tmp)
        #expect(command.status == 0, "\(command.stderr)")
        #expect(program.status == command.status, "\(program.stderr)")
        #expect(program.stdout == command.stdout)
        #expect(program.stdout.suffix(message.count) == message)
        #expect(program.stderr == command.stderr)
        let events = try ["command", "program"].map { name in
            try ReservoirBinary.run(["events", "--json", "--all", "--store", "sqlite:\(tmp.path)/\(name).sqlite3", "--now", ReservoirBinary.now]).text
        }
        #expect(events[0] == events[1])
        // Sample 7 carries no markup, sample 8 was altered after signing, and sample 9's pass is
        // not trusted without --pass-ca.
        #expect(events[1].contains("\"status\"") == ![7, 8, 9].contains(number), "sample \(number): \(events[1])")
    }

    @Test(
        "a malformed --now and a missing keys file pass the message through, as the command does",
        arguments: [["--now", "yesterday", "--keys", "{keys}"], ["--keys", "/nonexistent/keys.zone"]])
    func failOpenLikeTheCommand(arguments: [String]) throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let message = try ReservoirBinary.sampleMessage(4)
        let args = arguments.map { $0 == "{keys}" ? ReservoirBinary.keys : $0 } + ["--allow-any-domain", "--store", "{store}"]
        let (command, program) = try both(args, stdin: message, in: tmp)
        #expect(command.status == 0 && program.status == 0)
        #expect(command.stdout == message && program.stdout == message)
        #expect(!program.stderr.isEmpty && program.stderr == command.stderr)
    }

    @Test(
        "help and arguments it does not take are explained by reservoir filter beside it",
        arguments: [["--help"], ["--frobnicate"], ["--timeout", "soon"], ["--keys"]])
    func explainedByTheCommand(arguments: [String]) throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let (command, program) = try both(arguments, stdin: Data("Subject: x\n\nbody\n".utf8), in: tmp)
        #expect(program.status == command.status)
        #expect(program.status == (arguments == ["--help"] ? 0 : 64))
        #expect(program.text == command.text)
        #expect(program.stderr == command.stderr)
        if arguments == ["--help"] { #expect(program.text.contains("USAGE: reservoir filter")) }
    }
}
