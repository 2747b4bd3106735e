import CMilter
import CommandCore
import Glibc
import ServiceLog
import Synchronization
import Telemetry

// `reservoir milter`: one process for a whole site, speaking the milter protocol to Postfix or
// Sendmail through libmilter. Each message is read once, analysed once, and its trusted
// reservations filed under every envelope recipient that is an account of the site
// (``MilterSettings``, ``MilterMessage``, ``FilterHook/milterChanges(_:)`` in CommandCore,
// tested without a socket). This program only connects libmilter's callbacks to them; it is a
// program of its own so that neither `reservoir` nor the hook links libmilter.
//
// libmilter runs each connection on a thread of its own and calls one connection's callbacks
// one at a time: a connection's state is its own (`smfi_setpriv`), the settings are read only,
// and every message opens its own store handles.

/// Settings in use, never changed: a reload (SIGHUP) installs new ones whole, and a
/// transaction keeps those it began with.
private final class Installed: @unchecked Sendable {
    let settings: MilterSettings
    init(_ settings: MilterSettings) { self.settings = settings }
}

/// The settings new transactions take: set before `smfi_main`, replaced by a reload.
private let installed = Mutex<Installed?>(nil)
private func current() -> MilterSettings? { installed.withLock { $0 }?.settings }
/// Connections open, for the drain after a stop.
private let openConnections = Atomic<Int>(0)

/// A connection's state: the message of the current transaction, and whether the MTA sends
/// header values with their leading space (`SMFIP_HDR_LEADSPC`).
private final class Connection {
    var message: MilterMessage?
    /// The settings of the current transaction, taken at MAIL FROM.
    var settings: MilterSettings?
    var leadingSpace = false
}

private func connection(_ context: OpaquePointer?) -> Connection? {
    guard let raw = smfi_getpriv(context) else { return nil }
    return Unmanaged<Connection>.fromOpaque(raw).takeUnretainedValue()
}

/// The connection's state, made on its first callback (negotiation comes before connect).
private func attach(_ context: OpaquePointer?) -> Connection {
    if let state = connection(context) { return state }
    openConnections.add(1, ordering: .relaxed)
    let state = Connection()
    smfi_setpriv(context, Unmanaged.passRetained(state).toOpaque())
    return state
}

/// What `smfi_main` returned.
private let listenerStatus = Atomic<Int32>(MI_SUCCESS)
/// libmilter's listener, on a thread of its own.
private func runListener(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    listenerStatus.store(smfi_main(), ordering: .sequentiallyConsistent)
    return nil
}

private let accept = sfsistat(SMFIS_ACCEPT)
private let proceed = sfsistat(SMFIS_CONTINUE)

@main
enum ReservoirMilter {
    /// How long a stop waits for open connections to finish their message, and for analyses
    /// past their time budget to finish recording.
    static let drainSeconds = 30

    static let usage = """
        USAGE: reservoir milter --socket SOCKET [--account ADDRESS | --account-domain DOMAIN | --accounts-file FILE]... [options]

        Files the trusted reservations of each message under every envelope recipient that is an
        account of this site (the configuration file's [accounts."ADDRESS"] tables, and the
        accounts the options below name); adds Authentication-Results and X-Reservation fields
        and deletes forged ones; never rejects a message or changes its body. Before it listens
        it checks its settings (exit 78), its store (75) and its retry spool (73). SIGHUP rereads
        the configuration and accounts files; SIGTERM stops it after the messages under way.

        OPTIONS:
          --socket SOCKET          inet:PORT@HOST, inet6:PORT@HOST or unix:PATH
          --account ADDRESS        A mailbox of this site (repeatable).
          --account-domain DOMAIN  Every mailbox of this domain (repeatable).
          --accounts-file FILE     Accounts one a line: jane@example.org, or @example.org for a domain.
          --recipient-delimiter CHARACTERS
                                   Characters that start a recipient's detail, as Postfix's
                                   recipient_delimiter: jane+trips@ is jane@'s account when
                                   jane@ is one (default +; --recipient-delimiter= for none).
        \(ServiceOptions.usage)
          Every option of reservoir filter: --store, --keys, --allowed-domains, --allow-domain,
          --authserv-id, --timeout, --retry-spool, --now, ... (reservoir filter --help).

        """

    nonisolated static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let service: ServiceOptions
        switch ServiceOptions.take(from: &arguments) {
        case .success(let options): service = options
        case .failure(let problem): fail(problem.description, code: 64)
        }
        MilterTelemetry.setUp(service)
        // What the milter will need, checked before it says READY=1, so `systemctl start` shows a
        // wrong setting or store or an unwritable retry spool rather than the first message
        // (docs/SITE.md).
        let settings: MilterSettings
        switch MilterStartCheck.settings(arguments, configuration: .process) {
        case .success(nil):
            Output.write(usage)
            exit(0)
        case .success(let read?):
            settings = read
        case .failure(let failure):
            fail(failure.message, code: failure.code)
        }
        installed.withLock { $0 = Installed(settings) }
        do { try MilterTelemetry.startMetrics(service, hook: settings.hook) } catch { fail(error.description, code: 69) }
        var description = smfiDesc()
        description.xxfi_name = strdup("reservoir")
        description.xxfi_version = reservoir_milter_version()
        description.xxfi_flags = UInt(SMFIF_ADDHDRS | SMFIF_CHGHDRS)
        description.xxfi_connect = { context, _, _ in
            _ = attach(context)
            return proceed
        }
        description.xxfi_envfrom = { context, _ in
            guard let state = connection(context), let settings = current() else { return accept }
            state.settings = settings
            state.message = MilterMessage(authservID: settings.hook.resolvedAuthservID)
            return proceed
        }
        description.xxfi_envrcpt = { context, argv in
            guard let state = connection(context), let settings = state.settings, let first = argv?.pointee else { return proceed }
            if let account = settings.account(forRecipient: String(cString: first)) { state.message?.addAccount(account) }
            return proceed
        }
        description.xxfi_header = { context, name, value in
            guard let state = connection(context), let name, let value else { return proceed }
            let bytes = Array(UnsafeRawBufferPointer(start: value, count: strlen(value)))
            state.message?.header(name: String(cString: name), value: state.leadingSpace ? bytes : [UInt8(ascii: " ")] + bytes)
            return proceed
        }
        description.xxfi_eoh = { context in
            connection(context)?.message?.endOfHeader()
            return proceed
        }
        description.xxfi_body = { context, bytes, count in
            guard let bytes else { return proceed }
            connection(context)?.message?.body(UnsafeBufferPointer(start: bytes, count: count))
            return proceed
        }
        description.xxfi_eom = { context in
            guard let state = connection(context), let message = state.message, let settings = state.settings else { return accept }
            state.message = nil
            state.settings = nil
            let changes = settings.hook.milterChangesWithinBudget(message, finished: MilterTelemetry.finisher(context))
            ReservoirMilter.apply(changes, to: context, leadingSpace: state.leadingSpace)
            return proceed
        }
        description.xxfi_abort = { context in
            connection(context)?.message = nil
            connection(context)?.settings = nil
            return proceed
        }
        description.xxfi_close = { context in
            if let raw = smfi_getpriv(context) {
                Unmanaged<Connection>.fromOpaque(raw).release()
                smfi_setpriv(context, nil)
                openConnections.subtract(1, ordering: .relaxed)
            }
            return proceed
        }
        description.xxfi_negotiate = { context, actions, steps, _, _, wantedActions, wantedSteps, _, _ in
            // An MTA that cannot change fields still has the message recorded; the changes
            // it refuses fail without effect.
            wantedActions?.pointee = actions & UInt(SMFIF_ADDHDRS | SMFIF_CHGHDRS)
            let leading = UInt(SMFIP_HDR_LEADSPC)
            // The fields exactly as sent (DKIM's simple header canonicalization, RFC 6376
            // §3.4.1, hashes the space after the colon), and no SMTP steps we do not read.
            var asked = steps & (leading | UInt(SMFIP_NOHELO | SMFIP_NOUNKNOWN | SMFIP_NODATA))
            asked |= steps & UInt(SMFIP_NR_HDR | SMFIP_NR_BODY | SMFIP_NR_EOH)
            wantedSteps?.pointee = asked
            attach(context).leadingSpace = asked & leading != 0
            return proceed
        }
        // libmilter's signal thread waits for SIGTERM, SIGINT and SIGHUP with sigwait(3) once
        // smfi_main runs, and stops the milter on any of them; blocked from here in every
        // thread, one that comes earlier (just after READY=1) waits instead of killing the
        // process. SIGHUP is this thread's (``reload(_:)``).
        var stopping = sigset_t()
        sigemptyset(&stopping)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&stopping, signal) }
        pthread_sigmask(SIG_BLOCK, &stopping, nil)
        let socket = strdup(settings.socket)
        guard smfi_setconn(socket) == MI_SUCCESS, smfi_register(description) == MI_SUCCESS else {
            fail("cannot set up libmilter for \(settings.socket)", code: 70)
        }
        // The socket is opened now, so a port in use or an unwritable path stops the start;
        // a stale UNIX socket is removed first.
        guard smfi_opensocket(1) == MI_SUCCESS else {
            fail("cannot listen on \(settings.socket): \(String(cString: strerror(errno)))", code: 69)
        }
        disableNagle()
        // libmilter listens on a thread of its own and stops accepting on SIGTERM or SIGINT
        // (its signal thread); messages already being read finish before the process ends.
        var listener = pthread_t()
        let started = pthread_create(&listener, nil, runListener, nil)
        guard started == 0 else { fail("cannot start libmilter's listener: \(String(cString: strerror(started)))", code: 70) }
        // SIGHUP is libmilter's stop signal too, but blocked in every other thread and caught
        // in this one: Linux gives a signal sent to the process to its main thread when that
        // thread does not block it (`complete_signal`), so it never reaches libmilter's signal
        // thread.
        let reloaded = arguments
        guard HangUpSignal.onEach({ reload(reloaded) }) else { fail("cannot set up SIGHUP for reloading", code: 70) }
        log("listening on \(settings.socket)")
        ServiceNotification.send("READY=1")
        pthread_join(listener, nil)
        // Blocked again, for the probe below.
        var hangUp = sigset_t()
        sigemptyset(&hangUp)
        sigaddset(&hangUp, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &hangUp, nil)
        let stoppedBySignal = listenerStatus.load(ordering: .sequentiallyConsistent) == MI_SUCCESS || stopSignalEndedLibmilter()
        var waited = 0
        // Connections still open, and analyses that outlasted their budget still recording.
        while openConnections.load(ordering: .relaxed) > 0 || FilterHook.milterWorkRunning > 0, waited < drainSeconds * 10 {
            usleep(100_000)
            waited += 1
        }
        log(stoppedBySignal ? "stopped" : "stopped: libmilter's listener failed (its reason is in the system log)")
        exit(stoppedBySignal ? 0 : 70)
    }

    /// A reload (SIGHUP): the configuration file and the accounts file reread and, after the
    /// checks of a start, the new settings installed for the transactions that begin
    /// afterwards; connections stay open. A failed check keeps the settings in use and says why.
    static func reload(_ arguments: [String]) {
        ServiceNotification.reloading {
            switch MilterStartCheck.settings(arguments, configuration: .reread()) {
            case .success(let read?):
                installed.withLock { $0 = Installed(read) }
                let accounts = read.accounts.count
                let domains = read.accountDomains.count
                log("reloaded: \(accounts) account\(accounts == 1 ? "" : "s"), \(domains) account domain\(domains == 1 ? "" : "s")")
            case .success(nil):
                break
            case .failure(let failure):
                log("reload refused, the settings in use are kept: \(failure.message)")
            }
        }
    }

    /// Whether libmilter's listener failed because a stop signal closed its socket. libmilter's
    /// signal thread closes the listening socket on SIGTERM, SIGHUP or SIGINT and ends; a
    /// signal that lands between the listener's check of the stop flag and its use of the
    /// socket (most likely just after start, when both threads begin) makes `smfi_main`
    /// report a failure for an ordinary stop. The probe: a SIGHUP sent to the process is taken
    /// at once by a signal thread that still waits, and stays pending (blocked everywhere)
    /// when that thread has ended, that is, when a signal stopped the milter.
    static func stopSignalEndedLibmilter() -> Bool {
        kill(getpid(), SIGHUP)
        for _ in 0..<30 {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGHUP) == 0 { return false }
            usleep(10_000)
        }
        return true
    }

    /// TCP_NODELAY on libmilter's listening TCP socket, which the connections it accepts
    /// inherit (Linux copies the option to an accepted socket). A reply is a few bytes written
    /// while the MTA's previous packet is not yet acknowledged: with Nagle's algorithm (RFC 896)
    /// it waits for the MTA's delayed ACK, about 40 ms a step, which made Postfix with an
    /// `inet:` milter 7 times slower than without one (docs/PERFORMANCE.md). libmilter has no
    /// call that returns its socket, so it is found among the process's descriptors: a
    /// listening TCP socket.
    static func disableNagle() {
        for descriptor in Int32(3)..<Int32(1024) {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &value, &length) == 0, value == 1 else { continue }
            var domain: Int32 = 0
            length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0, domain == AF_INET || domain == AF_INET6 else {
                continue
            }
            var on: Int32 = 1
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Deletes the forged fields, then adds ours at the top in their order.
    static func apply(_ changes: MilterChanges, to context: OpaquePointer?, leadingSpace: Bool) {
        for deletion in changes.deletions {
            _ = deletion.name.withCString { name in smfi_chgheader(context, UnsafeMutablePointer(mutating: name), Int32(deletion.index), nil) }
        }
        for insertion in changes.insertions.reversed() {
            let value = leadingSpace ? insertion.value : String(insertion.value.drop { $0 == " " })
            _ = insertion.name.withCString { name in
                value.withCString { text in
                    smfi_insheader(context, 0, UnsafeMutablePointer(mutating: name), UnsafeMutablePointer(mutating: text))
                }
            }
        }
    }

    static func log(_ line: String) { MilterTelemetry.log.info(line) }

    /// sysexits.h: EX_USAGE 64, EX_UNAVAILABLE 69, EX_SOFTWARE 70, EX_CONFIG 78.
    static func fail(_ message: String, code: Int32) -> Never {
        MilterTelemetry.log.error(message)
        exit(code)
    }
}
