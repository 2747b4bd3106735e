import ArgumentParser
import CommandCore
import DKIM
import Output
import Pipeline

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a message's DKIM signatures.",
        discussion: """
            One line per DKIM-Signature field with its RFC 8601 result and the reason, then \
            whether a passing signature is aligned with the From domain.

            Examples:
              reservoir verify message.eml
              reservoir verify - --json --keys keys.zone < message.eml
            """)

    @Argument(help: ArgumentHelp("A message file, or - for standard input.", valueName: "file"))
    var file: String = "-"

    @OptionGroup var keys: KeyOptions
    @OptionGroup var clock: ClockOptions

    @Flag(name: .customLong("json"), help: "Print the results as JSON.")
    var json = false

    @Option(name: .long(.authservID), help: ArgumentHelp(.authservID))
    var authservID: String?

    @Flag(
        name: .customLong("exit-status"),
        help: "Exit 1 unless the message has a signature and every signature passes (for scripts).")
    var exitStatus = false

    func run() throws {
        let runner = try CommandRunner(keys: keys, policy: nil, store: .none, clock: clock, includePast: false)
        let raw = try runner.read(file)
        let report = runner.pipeline.process(raw)
        let results = AuthenticationResults(report: report, authservID: authservID ?? AuthenticationResults.defaultAuthservID())
        if json {
            Output.line(VerificationRenderer.json(report, authenticationResults: results))
        } else {
            Output.write(VerificationRenderer.text(report))
        }
        if exitStatus, report.signatures.isEmpty || report.signatures.contains(where: { $0.result != .pass }) {
            throw ExitStatus(1)
        }
    }
}
