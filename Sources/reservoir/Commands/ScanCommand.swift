import ArgumentParser
import MIME
import Pipeline

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan Maildirs, mboxes or message files; print a banner per message.",
        discussion: """
            Maildirs are read from cur/ and new/ (and .Folder subfolders), mboxes message by \
            message. Trusted reservations are recorded in the store.

            Examples:
              reservoir scan ~/Maildir --allowed-domains ~/.config/reservoir/allowed-domains
              reservoir scan Maildir-samples --keys Maildir-samples/keys.zone --allow-any-domain
            """)

    @Argument(help: ArgumentHelp("Maildirs, mbox files or message files.", valueName: "path"))
    var paths: [String]

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clock: ClockOptions

    @Flag(name: .customLong("json"), help: "Print one JSON object per message (JSON Lines).")
    var json = false

    @Flag(name: .customLong("include-past"), help: "Keep reservations that already ended.")
    var includePast = false

    @Option(name: .customLong("jobs"), help: ArgumentHelp("Threads analyzing messages (default: one per core).", valueName: "n"))
    var jobs: Int?

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        let runner = try CommandRunner(keys: keys, policy: policy, store: storeOptions, clock: clock, includePast: includePast)
        let renderer = BannerRenderer(style: BannerStyle.forStandardOutput())
        var summary = ScanSummary()
        var progress = ScanProgress()
        let scanner = MessageScanner(workers: try runner.analyzers(jobs ?? MessageScanner.availableCores()),
                                     recorder: runner.pipeline)
        for path in paths {
            scanner.scan(try runner.messages(at: path)) { report in
                summary.add(report)
                progress.add(bytes: report.size)
                if json {
                    Output.line(BannerRenderer.json(report))
                } else {
                    Output.write(renderer.render(report))
                    Output.line("")
                }
            }
        }
        progress.finish()
        if !json { Output.write(renderer.render(summary)) }
        if let failure = summary.storeFailure { throw CommandFailure.store(failure) }
    }
}
