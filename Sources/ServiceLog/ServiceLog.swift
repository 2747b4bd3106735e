import Glibc

/// How much a long-running program says (`--log-level`): the syslog(3) priorities it uses, in
/// their numeric order (RFC 5424 §6.2.1), so a level passes every line of its number or below.
public enum LogLevel: Int32, Sendable, CaseIterable, Comparable {
    case error = 3
    case warning = 4
    case info = 6
    case debug = 7

    /// The names `--log-level` takes.
    public var name: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .info: "info"
        case .debug: "debug"
        }
    }

    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where the lines go.
public enum LogDestination: Sendable, Equatable {
    /// Standard error; `journal`: each line starts with its sd-daemon(3) priority prefix
    /// (`<6>`), which systemd's journal reads and strips, and without the program's name, which
    /// the journal adds. Without it the lines are for a person: `reservoir milter: error: …`.
    case standardError(journal: Bool)
    /// syslog(3), facility mail, with the program's name as its ident.
    case syslog
}

/// The log of a long-running program (`reservoir milter`, `reservoir watch`, `reservoir
/// serve`): one line per event, at a priority, filtered by ``level``. Each line is written
/// with one write(2), so lines from several threads never interleave (a pipe's writes of at
/// most PIPE_BUF bytes are atomic, POSIX write(2)); a line is at most ``maximumLineBytes``.
public final class ServiceLog: @unchecked Sendable {
    /// The program's name in a person's lines and syslog's ident (`reservoir-milter`'s is
    /// "reservoir milter" in lines, "reservoir-milter" in syslog).
    public let program: String
    public let level: LogLevel
    public let destination: LogDestination
    /// syslog(3) keeps the ident pointer it is given: this one lives as long as the log.
    private let ident: UnsafeMutablePointer<CChar>?

    /// Longer lines are cut, with `…` at the end: PIPE_BUF (4096 on Linux), so a line stays one
    /// atomic write and one journal entry.
    public static let maximumLineBytes = 4096

    public init(program: String, level: LogLevel = .info, destination: LogDestination) {
        self.program = program
        self.level = level
        self.destination = destination
        if destination == .syslog {
            let name = strdup(program.replacingSpaces())
            ident = name
            // RFC 5424 facility mail, as the MTA and OpenDKIM log; LOG_PID as they do.
            openlog(name, LOG_PID | LOG_NDELAY, LOG_MAIL)
        } else {
            ident = nil
        }
    }

    deinit {
        if ident != nil { closelog() }
        free(ident)
    }

    /// The destination for a program run by systemd or from a terminal: the journal's form
    /// when standard error is the journal's stream (`$JOURNAL_STREAM` names its device and
    /// inode, systemd.exec(5)), a person's form otherwise; syslog when asked.
    public static func destination(syslog: Bool, environment: (String) -> String? = processEnvironment) -> LogDestination {
        if syslog { return .syslog }
        return .standardError(journal: isJournalStream(environment("JOURNAL_STREAM"), descriptor: STDERR_FILENO))
    }

    /// Whether `descriptor` is the stream `$JOURNAL_STREAM` (`DEVICE:INODE`) names.
    public static func isJournalStream(_ variable: String?, descriptor: Int32) -> Bool {
        guard let variable else { return false }
        let parts = variable.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    public static func processEnvironment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    public func error(_ text: String) { log(.error, text) }
    public func warning(_ text: String) { log(.warning, text) }
    public func info(_ text: String) { log(.info, text) }
    public func debug(_ text: String) { log(.debug, text) }

    /// Whether a line at `priority` is written: to skip building a debug line that is not.
    public func logs(_ priority: LogLevel) -> Bool { priority <= level }

    public func log(_ priority: LogLevel, _ text: String) {
        guard logs(priority) else { return }
        switch destination {
        case .syslog:
            let body = Self.oneLine(text, limit: Self.maximumLineBytes)
            body.withCString { line in Self.sendSyslog(priority.rawValue, line) }
        case .standardError(let journal):
            let line = Self.line(priority, text, program: program, journal: journal)
            let bytes = Array(line.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                var offset = 0
                while offset < buffer.count {
                    let n = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                    if n > 0 { offset += n } else if n < 0, errno == EINTR { continue } else { return }
                }
            }
        }
    }

    /// syslog(3) with the text as an argument, never as the format.
    private static func sendSyslog(_ priority: Int32, _ line: UnsafePointer<CChar>) {
        withVaList([line]) { vsyslog(priority, "%s", $0) }
    }

    /// One line as written to standard error, with its line feed: `<6>text` for the journal,
    /// `program: text` (`program: error: text`, `warning:`, `debug:`) for a person.
    public static func line(_ priority: LogLevel, _ text: String, program: String, journal: Bool) -> String {
        let word = priority == .info ? "" : priority.name + ": "
        let head = journal ? "<\(priority.rawValue)>" : "\(program): \(word)"
        return head + oneLine(text, limit: maximumLineBytes - head.utf8.count - 1) + "\n"
    }

    /// `text` on one line: each control character (a line feed a value carried, a terminal
    /// escape) becomes a space; cut to at most `limit` bytes of UTF-8, with `…` when cut.
    public static func oneLine(_ text: String, limit: Int) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let control = scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
            scalars.append(control ? " " : scalar)
        }
        let shown = String(scalars)
        guard shown.utf8.count > limit else { return shown }
        var cut = String.UnicodeScalarView()
        var bytes = 0
        for scalar in scalars {
            let size = String(scalar).utf8.count
            guard bytes + size <= limit - 3 else { break }
            cut.append(scalar)
            bytes += size
        }
        cut.append("\u{2026}")
        return String(cut)
    }
}

extension String {
    fileprivate func replacingSpaces() -> String { String(map { $0 == " " ? "-" : $0 }) }
}
