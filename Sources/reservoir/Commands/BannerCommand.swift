import ArgumentParser
import CommandCore
import Glibc
import Output
import Pipeline

struct BannerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "banner",
        abstract: "Show the one-glance summary of a message's reservations.",
        discussion: """
            What, when, where, status, and who vouched for it. It only looks: trusted \
            reservations are recorded only when --store names a store, and the banner then says \
            what changed there (new, moved, cancelled).

            Examples:
              reservoir banner message.eml
              reservoir banner --keys keys.zone - < message.eml
            """)

    @Argument(help: ArgumentHelp("Message files, or - for standard input.", valueName: "file"))
    var files: [String] = ["-"]

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clock: ClockOptions

    @Flag(name: .customLong("json"), help: "Print one JSON object per message.")
    var json = false

    @Flag(name: .long(.noStore), help: "Do not record anything, even with --store.")
    var noStore = false

    @Flag(name: .long(.includePast), help: ArgumentHelp(.includePast))
    var includePast = false

    func run() throws {
        let runner = try CommandRunner(
            // Looking at a message never writes the user's store by surprise (a demo, a check of
            // a suspicious mail): only a store named by --store or the configuration is written.
            keys: keys, policy: policy, store: noStore || storeOptions.location == nil ? .none : storeOptions.choice, clock: clock,
            includePast: EffectiveSettings.includePast(includePast), storeOptions: storeOptions)
        // Waiting on a terminal with no word would look like a hang.
        if files.contains("-"), isatty(STDIN_FILENO) == 1 {
            Output.error("banner: reading a message from standard input (end it with Ctrl-D), or give a file: reservoir banner FILE")
        }
        let style = BannerStyle.forStandardOutput()
        var first = true
        for file in files {
            let raw = try runner.read(file)
            let report = runner.pipeline.process(raw)
            if json {
                Output.line(BannerRenderer.json(report))
            } else {
                if !first { Output.line("") }
                Output.write(BannerRenderer(style: style).render(report))
            }
            first = false
            try runner.check(report)
        }
    }
}
