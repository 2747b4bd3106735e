import ArgumentParser
import CalDAV
import CommandCore
import Delivery
import EventStore
import Glibc
import JSON
import Output
import Pipeline
import ReservoirBase
import Trust

struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a confirmation page by its https address, or a document from a file.",
        discussion: """
            An address is fetched over https, TLS verified against the system's CAs (or \
            --ca-file), redirects followed only to https within the same registered domain (at \
            most \(PageLimits.maxRedirects)), the page at most \(PageLimits.maxBodyBytes >> 20) MB \
            within --timeout, and only a response served as text/html or application/xhtml+xml \
            is read. No connection is made to a loopback, private or other special-purpose \
            address (RFC 6890), on any hop, unless --allow-private-host names the host. Its \
            JSON-LD and Microdata are trusted when the final host or its \
            registered domain is allowed (--allow-domain, --allowed-domains, the account's, the \
            configuration file): the registered domain vouches for and owns the booking. A plain \
            http:// page is shown, never stored.

            A file: .eml is read as mail (DKIM, passes, as ingest); .pkpass keeps its own \
            signature (--pass-ca, --allow-pass-type); .pdf and images are read for their bar \
            codes; .html and .ics have no proof and are shown, not stored (unless \
            --allow-unverified). Trusted reservations are recorded in \
            the store and pushed to the account's calendars. Exit status: 0 done (also when \
            nothing was trusted), 65 a page refused by the fetch rules, 66 an unreadable file, \
            69 a page that could not be fetched.

            Examples:
              reservoir add https://confirm.restaurant.example/booking/4711
              reservoir add --json confirmation.eml
            """)

    @Argument(help: ArgumentHelp("An https:// address, or a .eml, .html, .pkpass, .ics, .pdf or image file.", valueName: "address-or-file"))
    var target: String

    @OptionGroup var recording: RecordingOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var noCalendar: NoCalendarOption

    @Option(name: .customLong("ca-file"), help: "PEM file of CAs verifying the page's TLS certificate, in place of the system's.")
    var caFile: String?

    @Option(
        name: .customLong("resolve"),
        help: ArgumentHelp("Connect to ADDRESS for HOST:PORT (repeatable), as curl's --resolve.", valueName: "host:port:address"))
    var resolve: [String] = []

    @Option(
        name: .customLong("allow-private-host"),
        help: ArgumentHelp(
            "Let HOST be fetched on a loopback, private or other special-purpose address (repeatable): an intranet's own page, or a test server.",
            valueName: "host"))
    var allowPrivateHosts: [String] = []

    @Option(name: .customLong("timeout"), help: "Seconds the whole fetch may take, every redirect included (default 20).")
    var timeout: Int?

    @Flag(name: .customLong("json"), help: "Print one JSON object.")
    var json = false

    func validate() throws {
        for entry in resolve where entry.split(separator: ":", omittingEmptySubsequences: false).count < 3 {
            throw ValidationError("--resolve takes HOST:PORT:ADDRESS (got \(entry))")
        }
        if let timeout, timeout < 1 || timeout > 600 { throw ValidationError("--timeout takes 1 to 600 seconds") }
    }

    func run() throws {
        let account = try recording.storeOptions.selectedAccount()
        let calendars = calendarOptions.settings(noCalendar, for: account)
        try CalendarPusher.check(calendars)
        let runner = try CommandRunner(
            keys: recording.keys, policy: recording.policy, store: .none, clock: recording.clock, includePast: recording.past.includesPast,
            account: account, storeOptions: recording.storeOptions)
        var report: MessageReport
        if target.contains("://") {
            report = try fetch(runner)
        } else if target.lowercased().hasSuffix(".html") || target.lowercased().hasSuffix(".htm") {
            guard let bytes = try? FileBytes.read(target, limit: PageLimits.maxBodyBytes) else {
                throw CommandFailure.unreadable(target, "cannot read the page (at most 2 MB)")
            }
            report = runner.pipeline.analyze(page: bytes, origin: .file(path: target))
        } else if target.lowercased().hasSuffix(".eml") {
            report = runner.pipeline.analyze(try runner.read(target))
        } else if let kind = DocumentKind(fileName: target) {
            let bytes: [UInt8]
            do { bytes = try FileBytes.read(target, limit: Self.maxDocumentBytes) } catch {
                throw CommandFailure.unreadable(target, "cannot read the file (at most 2 MB)")
            }
            report = runner.pipeline.analyze(document: bytes, kind: kind, path: target)
        } else {
            throw ValidationError("add takes an https:// address or a .eml, .html, .pkpass, .ics, .pdf, .png, .jpg or .gif file (got \(target))")
        }
        if report.hasTrustedReservations {
            let store = try CommandRunner.openStore(
                at: recording.storeOptions.location, use: .record(createDirectories: recording.creation.create), account: account)
            runner.pipeline.record(&report, into: store)
            try runner.check(report)
            if let pusher = try CalendarPusher(calendars, store: store, clock: runner.pipeline.clock) {
                pusher.push(CalendarPusher.changedKeys(report), deadline: .after(milliseconds: CalendarPusher.hookPushMilliseconds), command: "add")
            }
        }
        if json {
            Output.line(BannerRenderer.json(report))
        } else {
            Output.write(BannerRenderer(style: BannerStyle.forStandardOutput()).render(report))
        }
    }

    /// The page at `target`, fetched by the rules of ``PageFetcher``; a failure is said (as JSON
    /// with --json) and ends the command.
    private func fetch(_ runner: CommandRunner) throws -> MessageReport {
        let policy = runner.pipeline.policy
        let settings = PageFetchSettings(
            caFile: caFile, resolve: resolve, timeoutMilliseconds: (timeout.map { $0 * 1000 }) ?? PageLimits.timeoutMilliseconds,
            allowPrivateHosts: allowPrivateHosts)
        let result: Result<FetchedPage, PageFetchFailure>
        do {
            result = try PageFetcher(settings: settings).fetch(target, sameSite: policy.sameRegisteredDomain)
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let page):
            let https = page.address.scheme == "https"
            return runner.pipeline.analyze(page: page.body, origin: .fetched(url: page.address.url, host: page.address.host, https: https))
        case .failure(let failure):
            if json {
                let members: [JSONObject.Member] = [
                    .init(key: "url", value: .string(target)),
                    .init(
                        key: "failure",
                        value: .object(
                            JSONObject([
                                .init(key: "code", value: .string(failure.code.rawValue)), .init(key: "reason", value: .string(failure.sentence)),
                            ]))),
                ]
                Output.line(JSONValue.object(JSONObject(members)).serialized())
            } else {
                Output.error("add: \(target): \(failure.sentence) (\(failure.code.rawValue))")
            }
            throw ExitStatus(Self.exitStatus(failure))
        }
    }

    /// The largest document file read: what fits with its envelope in a message read whole
    /// (MIME `Limits.wholeMessageBytes`, 2 MB), the largest whose attachments are read.
    static let maxDocumentBytes = (2 << 20) - 4096

    /// sysexits.h: 65 (EX_DATAERR) for a page the rules refuse, 69 (EX_UNAVAILABLE) for one
    /// that could not be fetched.
    static func exitStatus(_ failure: PageFetchFailure) -> Int32 {
        switch failure {
        case .notAnAddress, .schemeNotAllowed, .redirectNotHTTPS, .redirectOffSite, .tooManyRedirects, .tooLarge, .notHTML: 65
        case .libcurlUnavailable, .timeout, .tls, .couldNotConnect, .status, .other: 69
        }
    }
}
