import ArgumentParser
import CommandCore
import Output
import Pipeline

struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "List the reservations a message's markup describes, trusted or not.",
        discussion: """
            Reports what the markup says regardless of trust (the trust decision belongs to \
            banner, scan and filter). --explain adds the reasons for everything dropped.

            Examples:
              reservoir extract message.eml --json
              reservoir extract - --explain --now 2026-11-22T12:00:00Z < message.eml
            """)

    @Argument(help: ArgumentHelp("A message file, or - for standard input.", valueName: "file"))
    var file: String = "-"

    @OptionGroup var clock: ClockOptions

    @Flag(name: .customLong("json"), help: "Print {\"reservations\": [...], \"diagnostics\": [...]}.")
    var json = false

    @Flag(name: .customLong("explain"), help: "Explain every reservation dropped and every repair made.")
    var explain = false

    func run() throws {
        let runner = try CommandRunner(keys: nil, policy: nil, store: .none, clock: clock, includePast: false)
        let raw = try runner.read(file)
        let extraction = runner.pipeline.extract(raw)
        if json {
            Output.line(ExtractionRenderer.json(extraction))
        } else {
            Output.write(ExtractionRenderer.text(extraction, explain: explain))
        }
    }
}
