import ArgumentParser
import CommandCore
import Delivery
import EventStore
import Glibc
import JSON
import Mailbox
import Output
import Pipeline
import Trust

/// Who decides, for `reservoir allow` and `reservoir deny`: the local user's name, or, for a
/// button pressed on `reservoir serve`'s page (`--from-page`), the account whose page it is.
enum SenderDecider {
    static func localUser() -> String {
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid \(getuid())"
    }

    /// `page:ADDRESS` for the page of `account` (`page` for the implicit account's): the person
    /// who holds the page's token or login decided, not the service user the server runs as.
    static func who(fromPage: Bool, account: Account) -> String {
        guard fromPage else { return localUser() }
        return account.isImplicit ? "page" : "page:" + account.address
    }

    /// `domain` as the store keeps it: a host name in lowercase A-labels.
    static func domain(_ text: String) throws -> String {
        guard let domain = TrustPolicy.asciiHostName(text.hasPrefix(".") ? String(text.dropFirst()) : text) else {
            throw ValidationError("\(text) is not a domain name (airline.example)")
        }
        return domain
    }

    static func senders(_ store: any EventStore) throws -> any SenderStore {
        guard let senders = store.senders else { throw CommandFailure.store("this store keeps no pending senders") }
        return senders
    }
}

/// `allow` and `deny`: their answer as JSON, and whether the page's button asked.
struct PageDecisionOptions: ParsableArguments {
    @Flag(name: .customLong("json"), help: "Print what was decided and imported or dropped as JSON.")
    var json = false

    /// Set by `reservoir serve --actions`, which runs the command for a button on its page: the
    /// choice is recorded as the page account's (`page:ADDRESS`), not the server's user's.
    @Flag(name: .customLong("from-page"), help: .hidden)
    var fromPage = false

    /// A JSON object of the members that have a value.
    static func object(_ pairs: [(String, JSONValue?)]) -> JSONValue {
        .object(JSONObject(pairs: pairs.compactMap { key, value in value.map { (key, $0) } }))
    }
}

struct PendingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "List the reservations of genuine senders you have not chosen yet, by sender domain.",
        discussion: """
            A confirmation whose DKIM signature is valid, aligned with its From domain and covers the \
            markup, from a domain no allowed list names, waits here instead of being refused: never \
            in a calendar, for pending-days (default 30). reservoir allow DOMAIN trusts the domain and \
            imports them; reservoir deny DOMAIN drops them and refuses its later mail.

              reservoir pending
              reservoir pending --json --account jane@example.org
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clock: ClockOptions
    @OptionGroup var pending: PendingDaysOption

    @Flag(name: .customLong("json"), help: "Print the pending senders and the choices made as JSON.")
    var json = false

    func run() throws {
        let now = try clock.resolve()
        let account = try storeOptions.selectedAccount()
        let store = try CommandRunner.openAccountStore(at: storeOptions.location, use: .read, account: account)
        let senders = try SenderDecider.senders(store)
        let listed: [PendingReservation]
        let decisions: [SenderDecision]
        do {
            listed = try senders.pendingReservations(receivedSince: now - Int64(pending.days) * 86_400)
            decisions = try senders.senderDecisions()
        } catch {
            throw CommandFailure.store(error.message)
        }
        if json {
            Output.line(PendingListRenderer.json(listed, decisions: decisions))
        } else {
            Output.write(PendingListRenderer.text(listed, decisions: decisions))
        }
    }
}

struct AllowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "allow",
        abstract: "Trust a sender domain from now on, and import its pending reservations.",
        discussion: """
            The domain is kept in the store as one of the account's allowed domains, in addition \
            to the configured ones and --allow-domain. Each pending message of the domain is read \
            again with today's rules (its signature verified again) and its reservations go into \
            the store and the calendars; one that no longer verifies is dropped with the reason. \
            The choice is recorded with the time and the local user name.

              reservoir allow airline.example --calendar vdir:~/calendar
            """)

    @Argument(help: ArgumentHelp("The sender domain (the From domain pending lists).", valueName: "domain"))
    var domain: String

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clock: ClockOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var noCalendar: NoCalendarOption
    @OptionGroup var pending: PendingDaysOption
    @OptionGroup var page: PageDecisionOptions

    func run() throws {
        let domain = try SenderDecider.domain(domain)
        let account = try storeOptions.selectedAccount()
        let calendarSettings = calendarOptions.settings(noCalendar, for: account)
        let calendars = try CalendarPusher.open(calendarSettings)
        let now = try clock.resolve()
        let store = try CommandRunner.openAccountStore(at: storeOptions.location, use: .update, account: account)
        let senders = try SenderDecider.senders(store)
        let (runner, read) = try SenderChoices.allow(
            domain, senders: senders, expiry: now - Int64(pending.days) * 86_400, at: now,
            by: SenderDecider.who(fromPage: page.fromPage, account: account)
        ) {
            try CommandRunner(
                keys: keys, policy: policy, store: storeOptions.choice, clock: clock, includePast: EffectiveSettings.includePast(false),
                account: account, pending: pending, storeOptions: storeOptions)
        }
        var imported: [ReportedReservation] = []
        var refused: [(message: String, reason: String)] = []
        for message in read {
            imported += message.changed
            if !message.report.hasTrustedReservations {
                let report = message.report
                let why = report.hasReservations ? report.trust.reason : "no reservation in it today"
                refused.append((report.subject ?? report.messageID ?? "a message", why))
            }
        }
        if page.json {
            Output.line(
                PageDecisionOptions.object([
                    ("domain", .string(domain)), ("decision", .string("allow")),
                    (
                        "imported",
                        .array(
                            imported.map { item in
                                PageDecisionOptions.object([
                                    ("key", .string(item.event.key.description)), ("title", .string(item.event.title)),
                                    ("start", item.event.start.map { .string($0.text) }),
                                ])
                            })
                    ),
                    (
                        "notImported",
                        .array(refused.map { PageDecisionOptions.object([("message", .string($0.message)), ("reason", .string($0.reason))]) })
                    ),
                ]).prettyPrinted())
        } else {
            Output.line("allowed: \(domain)")
            for item in imported { Output.line("imported: \(item.event.key) \(item.event.title)") }
            for message in refused { Output.line("not imported (\(message.message)): \(message.reason)") }
            Output.line("\(imported.count) \(imported.count == 1 ? "reservation" : "reservations") imported from \(domain)")
        }
        if let calendars, let eventStore = runner.pipeline.store {
            let pusher = try CalendarPusher(calendars, store: eventStore, clock: try clock.wallClock())
            CalendarPusher.complain(pusher.delivery.pushPending(), command: "allow")
        }
    }
}

struct DenyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deny",
        abstract: "Refuse a sender domain's reservations from now on, and drop its pending ones.",
        discussion: """
            The choice is kept in the store for the account, with the time and the local user name: \
            later mail from the domain is refused (note sender-denied) without waiting as pending. \
            A configured allowed domain stays allowed: the configuration is the person's choice too.

              reservoir deny newsletter.example
            """)

    @Argument(help: ArgumentHelp("The sender domain (the From domain pending lists).", valueName: "domain"))
    var domain: String

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clock: ClockOptions
    @OptionGroup var page: PageDecisionOptions

    func run() throws {
        let domain = try SenderDecider.domain(domain)
        let now = try clock.resolve()
        let account = try storeOptions.selectedAccount()
        let store = try CommandRunner.openAccountStore(at: storeOptions.location, use: .update, account: account)
        let senders = try SenderDecider.senders(store)
        let dropped = try SenderChoices.deny(
            domain, senders: senders, at: now, by: SenderDecider.who(fromPage: page.fromPage, account: account))
        if page.json {
            Output.line(
                PageDecisionOptions.object([("domain", .string(domain)), ("decision", .string("deny")), ("dropped", .number(Double(dropped.count)))])
                    .prettyPrinted())
            return
        }
        Output.line("denied: \(domain) (\(dropped.count) pending \(dropped.count == 1 ? "reservation" : "reservations") dropped)")
    }
}
