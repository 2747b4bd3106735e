package import DNS
package import EventStore
import EventStorePostgres
import Glibc
package import Mailbox
import Output
package import Pipeline
package import ReservoirBase
package import Trust
import WalletPass

/// Builds the pipeline from the common settings and maps environment failures to exit codes
/// (sysexits.h), in one place.
package struct CommandRunner {
    package let pipeline: ReservationPipeline
    private let keys: KeySettings?
    /// Whose bookings the store holds (`--account`).
    package let account: Account

    /// The pipeline for `keys`, `policy` and `store`; `given` answers the key lookups instead of
    /// the resolver `keys` names (a test's).
    package init(
        keys: KeySettings?, policy: PolicySettings?, store: StoreChoice, now: String?, includePast: Bool, account: Account = .implicit,
        pendingDays: Int = PendingLimits.defaultDays, resolver given: (any TXTResolver)? = nil
    ) throws {
        let clock = try Self.wallClock(now)
        let now = clock.now()
        let resolver = try given ?? Self.resolver(keys)
        let eventStore = try store.location.map { try Self.openStore(at: $0.url, use: $0.use, account: account) }
        let trust = try Self.trustPolicy(policy, store: eventStore)
        self.account = account
        pipeline = ReservationPipeline(resolver: resolver, policy: trust, store: eventStore, now: now, includePast: includePast)
        // The clock a long-running command reads per message (ReservationPipeline.current()):
        // the system's, unless --now pinned it.
        pipeline.clock = clock
        pipeline.pendingDays = pendingDays
        if let railKeys = policy?.railKeys {
            // Read when a rail ticket arrives; a path that cannot be read fails the command now.
            guard access(railKeys, R_OK) == 0 else { throw CommandFailure.unreadable(railKeys, "cannot read the --rail-keys file") }
            pipeline.railKeys = RailKeySource(path: railKeys)
        }
        self.keys = keys
    }

    /// The trust policy of `policy`: its files read (the allowed-domains file; the pass CA files
    /// checked), the domains the person allowed in `store` added. `publicSuffixes` is the list
    /// to align by, when another policy of the process has it already (the milter's accounts).
    package static func trustPolicy(
        _ policy: PolicySettings?, store: (any EventStore)? = nil, publicSuffixes: PublicSuffixList?? = nil
    ) throws -> TrustPolicy {
        var allowed = policy?.allowDomain ?? []
        if let file = policy?.allowedDomainsFile {
            guard let text = FileText.read(file) else {
                throw CommandFailure.unreadable(file, "cannot read the allowed-domains file")
            }
            allowed += TrustPolicy.allowedDomains(fromFileText: text)
        }
        // The domains the person allowed (`reservoir allow`), in addition to the configured ones.
        allowed += try storeAllowedDomains(store)
        return TrustPolicy(
            allowedDomains: allowed, allowAnyDomain: policy?.allowAnyDomain ?? false,
            allowUnverified: policy?.allowUnverified ?? false, publicSuffixes: publicSuffixes ?? PublicSuffixList.load(),
            recipients: try recipients(policy?.me ?? []), allowedPassTypes: try passTypes(policy?.allowPassType ?? []),
            passAnchors: PassTrustAnchors(paths: try passCAFiles(policy?.passCA ?? [])), trustedAuthservID: policy?.trustAuthservID,
            ownAuthservID: policy?.ownAuthservID ?? AuthenticationResults.defaultAuthservID(),
            trustedARCSealers: policy?.trustARCSealers ?? [], recipientDelimiter: policy?.recipientDelimiter ?? .standard)
    }

    /// The domains allowed by the person's choices kept in `store` for its account.
    package static func storeAllowedDomains(_ store: (any EventStore)?) throws -> [String] {
        guard let senders = store?.senders else { return [] }
        do {
            return try senders.senderDecisions().filter { $0.choice == .allow }.map(\.domain)
        } catch {
            throw CommandFailure.store(error.message)
        }
    }

    /// `--pass-ca` files, each readable now: they are read only when a pass arrives, and a
    /// typo should fail the command, not a later message.
    static func passCAFiles(_ paths: [String]) throws -> [String] {
        for path in paths where access(path, R_OK) != 0 {
            throw CommandFailure.unreadable(path, "cannot read the --pass-ca file")
        }
        return paths
    }

    /// `--allow-pass-type` values checked: an identifier, a prefix ending in `.*`, either with
    /// `=DOMAIN` linking it to the organisation's mail domain.
    static func passTypes(_ values: [String]) throws(UsageError) -> [String] {
        for value in values {
            if let problem = TrustPolicy.passTypeEntryProblem(value) {
                throw UsageError("--allow-pass-type takes TYPE or TYPE=DOMAIN (pass.com.airline.boarding=airline.example): \(problem)")
            }
        }
        return values
    }

    /// `--me` values checked: an address (`local@domain`) or a whole domain (`@domain`).
    static func recipients(_ values: [String]) throws(UsageError) -> [String] {
        for value in values {
            let at = value.split(separator: "@", omittingEmptySubsequences: false)
            guard at.count == 2, !at[1].isEmpty, !at[1].contains(" ") else {
                throw UsageError("--me takes an address (you@example.org) or a whole domain (@example.org); got \(value)")
            }
        }
        return values
    }

    /// The clock `--now` pins (ISO 8601 with an offset), or the system's without it.
    package static func wallClock(_ now: String?) throws(UsageError) -> WallClock {
        guard let now else { return .system }
        guard let epoch = Clock.parse(now) else {
            throw UsageError("--now must be an ISO 8601 date-time with an offset, e.g. 2026-11-22T12:00:00Z (got \(now))")
        }
        return .pinned(at: epoch)
    }

    /// The store at `location` (sqlite:PATH or postgres://…; nil: the embedded default), opened and migrated,
    /// as `use` needs it (``StoreUse``). A store this made is said on standard error unless
    /// `quiet` (the filter, whose standard error is a mail log of problems).
    package static func openStore(
        at location: String?, use: StoreUse = .record(createDirectories: false),
        busyTimeoutMilliseconds: Int32 = SQLiteEventStore.busyTimeoutMilliseconds, quiet: Bool = false, account: Account = .implicit
    ) throws -> any EventStore {
        let creation: StoreCreation
        switch use {
        case .read, .update: creation = .never
        case .record(let directories): creation = directories || location == nil ? .withDirectories : .inExistingDirectory
        }
        do {
            let store = try EventStoreLocation.open(
                location, postgres: PostgresEventStore.init(url:account:), readOnlyFallback: use == .read,
                busyTimeoutMilliseconds: busyTimeoutMilliseconds, creation: creation, account: account)
            if !quiet, let sqlite = store as? SQLiteEventStore, sqlite.isNew {
                Output.error("created a new store at \(sqlite.path)")
            }
            return store
        } catch {
            switch error.kind {
            // Nothing to read: a mistyped path, not an empty calendar (EX_NOINPUT).
            case .notFound:
                throw CommandFailure.unreadable(
                    (try? EventStoreLocation.sqlitePath(location)) ?? "the store",
                    location == nil
                        ? "no store here yet (scan, ingest or the filter makes it when it records a trusted reservation)"
                        : "no store here (check --store or the configuration's store; scan, ingest or the filter makes one)")
            // A URL that names no store, no default location: a setting to fix, which a retry
            // would meet again (EX_CONFIG, not EX_TEMPFAIL, so an MTA does not retry forever).
            case .unsupportedURL, .noDefaultLocation: throw CommandFailure.configuration(error.message)
            // No directory for a new store: a setting to fix too, but one the hooks keep the
            // message for (docs/HOOKS.md), as a retry applies it once the directory is made.
            case .missingDirectory: throw CommandFailure.storeLocation(error.message)
            default: throw CommandFailure.store(error.message)
            }
        }
    }

    /// The store for a command that reads or changes what is stored (`events`, `forget`,
    /// `sync`): without `--account`, a store several accounts share is refused with their list
    /// (exit 64) rather than read as the implicit account's, which would look empty.
    package static func openAccountStore(at location: String?, use: StoreUse, account: Account) throws -> any EventStore {
        let store = try openStore(at: location, use: use, account: account)
        guard account.isImplicit, let directory = store.directory else { return store }
        let named = try directory.accounts().map(\.account).filter { !$0.isImplicit }
        guard named.isEmpty else {
            throw UsageError(
                "this store holds the bookings of \(named.count) \(named.count == 1 ? "account" : "accounts") "
                    + "(\(named.prefix(10).map(\.address).joined(separator: ", "))\(named.count > 10 ? ", …" : "")); "
                    + "name one with --account")
        }
        return store
    }

    /// Pipelines without a store, each with a resolver of its own, for the threads of a scan.
    package func analyzers(_ count: Int) throws -> [ReservationPipeline] {
        try (0..<count).map { _ in
            let analyzer = ReservationPipeline(
                resolver: try Self.resolver(keys), policy: pipeline.policy, store: nil,
                now: pipeline.now, includePast: pipeline.includePast)
            analyzer.railKeys = pipeline.railKeys
            analyzer.clock = pipeline.clock
            return analyzer
        }
    }

    package static func resolver(_ keys: KeySettings?) throws -> any TXTResolver {
        // Commands that verify nothing get a resolver that knows no keys.
        guard let keys else { return KeysFile(text: "") }
        if let file = keys.keysFile {
            do {
                // The keys file reads a record's line when it is asked for; the cache keeps
                // the answer for the next message from the same selector, as with DNS.
                return CachingResolver(wrapping: try KeysFile(path: file))
            } catch {
                throw CommandFailure.unreadable(file, "cannot read the keys file: \(error)")
            }
        }
        var system = SystemResolver(timeoutSeconds: keys.dnsTimeout)
        if let server = keys.dnsServer {
            guard let configured = SystemResolver(server: server, timeoutSeconds: keys.dnsTimeout) else {
                throw UsageError("--dns-server takes HOST[:PORT] with an IPv4 address (got \(server))")
            }
            system = configured
        }
        return CachingResolver(wrapping: system)
    }

    /// One message from a file, or from standard input for `-`.
    package func read(_ file: String) throws -> RawMessage {
        do {
            return file == "-" ? try MessageSource.standardInput() : try MessageSource.file(file)
        } catch {
            throw Self.unreadable(file, error)
        }
    }

    /// Every message under a path: a Maildir, an mbox or a file.
    package static func messages(at path: String) throws -> MessageSource {
        do {
            return try MessageSource(path: path)
        } catch {
            throw Self.unreadable(path, error)
        }
    }

    /// The path once: a source error names the path it met, which may be one inside `path`.
    static func unreadable(_ path: String, _ error: any Error) -> CommandFailure {
        guard let error = error as? MessageSourceError else { return .unreadable(path, "\(error)") }
        return .unreadable(error.path.isEmpty ? path : error.path, error.message)
    }

    package func check(_ report: MessageReport) throws {
        if let failure = report.diagnostics.first(where: { $0.stage == .store }) {
            throw CommandFailure.store(failure.message)
        }
    }
}

/// A value the argument parser accepted but that does not make sense (a malformed --now): the
/// command line is wrong, exit 64 with the usage.
package struct UsageError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Ends the process with `code` after the command has said why (the filter's 75 when stdin or
/// stdout fails).
package struct ExitStatus: Error {
    package let code: Int32
    package init(_ code: Int32) { self.code = code }
}

/// Environment failures, each with what to do about it and its sysexits code.
package enum CommandFailure: Error, CustomStringConvertible {
    case unreadable(String, String)
    case store(String)
    /// A calendar destination cannot be used (a vdir that cannot be created, a CA file that
    /// cannot be read).
    case calendar(String)
    /// A setting is missing or names nothing usable (a store URL of no known kind, no home
    /// directory for the default store).
    case configuration(String)
    /// The store's directory does not exist: a setting to fix (EX_CONFIG), for which the hooks
    /// still keep the message for `reservoir retry`.
    case storeLocation(String)

    package var description: String {
        switch self {
        case .unreadable(let path, let why): "\(path): \(why)"
        case .store(let why): "the event store failed: \(why) (check the --store location, its permissions and free space)"
        case .calendar(let why): "calendar: \(why)"
        case .configuration(let why), .storeLocation(let why): why
        }
    }

    /// Whether a hook keeps the message for `reservoir retry` after this (a passing failure,
    /// or a store directory still to be made).
    package var keepsForRetry: Bool {
        switch self {
        case .store, .storeLocation: true
        case .unreadable, .calendar, .configuration: false
        }
    }

    /// sysexits.h: EX_NOINPUT 66, EX_CANTCREAT 73, EX_TEMPFAIL 75, EX_CONFIG 78.
    package var exitCode: Int32 {
        switch self {
        case .unreadable: 66
        case .store: 75
        case .calendar: 73
        case .configuration, .storeLocation: 78
        }
    }
}

package enum FileText {
    /// The whole file as UTF-8 text, or nil when it cannot be read (a directory included).
    /// For small files (allowed-domain lists, keys).
    package static func read(_ path: String) -> String? {
        guard let bytes = try? FileBytes.read(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Everything the CLI prints goes through here, with write(2): no buffered C streams, so
/// text and raw message bytes cannot interleave out of order.
package enum Output {
    package static func write(_ text: String) {
        _ = bytes(Array(text.utf8))
    }

    package static func line(_ text: String) {
        _ = bytes(Array((text + "\n").utf8))
    }

    /// Raw bytes to standard output, retrying short writes; false when stdout is gone.
    package static func bytes(_ bytes: [UInt8], to fd: Int32 = STDOUT_FILENO) -> Bool {
        bytes.withUnsafeBufferPointer { Self.bytes($0, to: fd) }
    }

    package static func bytes(_ buffer: UnsafeBufferPointer<UInt8>, to fd: Int32 = STDOUT_FILENO) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, base + offset, buffer.count - offset)
            if n > 0 { offset += n } else if n < 0, errno == EINTR { continue } else { return false }
        }
        return true
    }

    /// Where ``error(_:)`` sends its lines instead of standard error: a long-running program's
    /// log (``ServiceLog`` in the milter), set once before its threads start.
    nonisolated(unsafe) package static var errorSink: ((String) -> Void)?

    package static func error(_ text: String) {
        if let errorSink { return errorSink(text) }
        _ = bytes(Array(("reservoir: " + text + "\n").utf8), to: STDERR_FILENO)
    }
}
