import ArgumentParser
import CommandCore
import Output
import Pipeline

struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "List the reservations a message describes, trusted or not, each with its verdict.",
        discussion: """
            Reports what the markup, calendar parts and Wallet passes say, including what would \
            not be stored (ended, date unknown), each reservation with its own trust verdict, \
            decided as banner and scan decide it (the same keys and policy options). \
            --explain adds the reasons for everything dropped.

            Examples:
              reservoir extract message.eml --json --keys keys.zone
              reservoir extract - --explain --now 2026-11-22T12:00:00Z < message.eml
            """)

    @Argument(help: ArgumentHelp("A message file, or - for standard input.", valueName: "file"))
    var file: String = "-"

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var clock: ClockOptions

    @Flag(name: .customLong("json"), help: "Print {\"reservations\": [...], \"diagnostics\": [...]}.")
    var json = false

    @Flag(name: .customLong("explain"), help: "Explain every reservation dropped and every repair made.")
    var explain = false

    func run() throws {
        let runner = try CommandRunner(keys: keys, policy: policy, store: .none, clock: clock, includePast: false)
        let raw = try runner.read(file)
        let extraction = runner.pipeline.extract(raw)
        if json {
            Output.line(ExtractionRenderer.json(extraction))
        } else {
            Output.write(ExtractionRenderer.text(extraction, explain: explain))
        }
    }
}
