package import EventStore
import Glibc
package import Mailbox
import ReservoirBase

/// Messages whose reservations could not be recorded for a reason that passes (a DNS
/// `temperror`, an unusable store, a full disk), kept for `reservoir retry` (docs/HOOKS.md,
/// "Nothing lost"). One record a message, in a directory of its own:
///
/// - `NAME.eml`: a copy of the message (the filter, `ingest -`);
/// - `NAME.path`: the absolute path of the message file, one line (`ingest FILE`, `scan`);
/// - `tmp/`: records being written, renamed into the directory when complete;
/// - `claimed/NAME,PID`: a record a retry run is processing (claimed by rename, so two runs
///   never process one record);
/// - `failed/NAME` and `failed/NAME.reason`: records that cannot succeed, with why.
///
/// Names are unique the Maildir way (time, process, random, host). A record is created 0600,
/// or 0660 when the directory is group-writable (a spool shared by a group, like the store).
///
/// A site account's records are kept in a spool of their own, `accounts/ADDRESS/` below the
/// directory (``forAccount(_:)``), so a retry records them into that account's bookings and
/// no other; the implicit account's records stay at the top, as in a single-user spool.
package struct RetrySpool: Sendable {
    package let directory: String
    /// The spool whose `accounts/` holds this one; nil for the top.
    package let root: String?

    /// At most this many pending records; past it nothing more is kept (said on stderr and in
    /// an `X-Reservoir-Error` field), so a long outage cannot fill the disk.
    package static let maximumRecords = 1000
    /// At most this many bytes of pending records, the new one included.
    package static let maximumBytes = 64 << 20
    /// At most this many pending records in the whole spool, every account's included: a site
    /// outage with many accounts stays bounded too.
    package static let maximumSpoolRecords = 20_000
    /// At most this many bytes of pending records in the whole spool.
    package static let maximumSpoolBytes = 1 << 30

    package init(directory: String) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        root = nil
    }

    private init(directory: String, root: String) {
        self.directory = directory
        self.root = root
    }

    /// The spool of `account`'s records: this one for the implicit account, else
    /// `accounts/ADDRESS/` below it, the address percent-encoded to one safe name.
    package func forAccount(_ account: Account) -> RetrySpool {
        guard !account.isImplicit else { return self }
        let top = root ?? directory
        return RetrySpool(directory: top + "/accounts/" + Self.directoryName(account), root: top)
    }

    /// The accounts with a spool of their own, by address.
    package func accountSpools() -> [(account: Account, spool: RetrySpool)] {
        let top = root ?? directory
        return Self.names(in: top + "/accounts").compactMap { name in
            guard let address = Self.address(fromDirectoryName: name) else { return nil }
            return (Account(normalizedAddress: address), RetrySpool(directory: top + "/accounts/" + name, root: top))
        }.sorted { $0.account < $1.account }
    }

    /// The account's address as one safe file name (``AccountTemplate/component(_:)``): a local
    /// part may hold `/` or begin with a dot, a name may not.
    static func directoryName(_ account: Account) -> String {
        AccountTemplate.component(account.address)
    }

    /// The address a ``directoryName(_:)`` encodes; nil for a name it cannot have written.
    static func address(fromDirectoryName name: String) -> String? {
        guard let bytes = PercentEncoding.decoded(name.utf8) else { return nil }
        guard !bytes.isEmpty, let address = String(validating: bytes, as: UTF8.self),
            directoryName(Account(normalizedAddress: address)) == name
        else { return nil }
        return address
    }

    /// `retry-spool` when set, else `$XDG_STATE_HOME/reservoir/retry`, else
    /// `$HOME/.local/state/reservoir/retry`; nil without any of them (no home directory).
    package static func locate(_ configured: String?, environment: (String) -> String? = Self.processEnvironment) -> RetrySpool? {
        if let configured, !configured.isEmpty { return RetrySpool(directory: configured) }
        if let state = environment("XDG_STATE_HOME"), state.hasPrefix("/") { return RetrySpool(directory: state + "/reservoir/retry") }
        guard let home = environment("HOME"), home.hasPrefix("/"), home.contains(where: { $0 != "/" }) else { return nil }
        return RetrySpool(directory: home + "/.local/state/reservoir/retry")
    }

    package static func processEnvironment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// What keeping a record did.
    package enum Kept: Equatable {
        /// The record, by its path.
        case kept(String)
        /// Not kept, and why (the spool is full, cannot be written).
        case refused(String)
    }

    /// What a record holds.
    package enum Content {
        case bytes([UInt8])
        /// A file descriptor to copy from offset 0 (the filter's spool of a large message).
        case descriptor(Int32, size: Int)
        /// The message file's path.
        case path(String)
    }

    /// Keeps a record for `message`: its path when it came from a file, else a copy.
    package func keep(_ message: RawMessage) -> Kept {
        if let path = message.origin.path, path != "-" { return keep(.path(Self.absolute(path))) }
        if let file = message.file, case .descriptor(let fd) = file.location { return keep(.descriptor(fd, size: file.size)) }
        return keep(.bytes(message.bytes))
    }

    package func keep(_ content: Content) -> Kept {
        let size: Int
        let suffix: String
        switch content {
        case .bytes(let bytes): (size, suffix) = (bytes.count, ".eml")
        case .descriptor(_, let length): (size, suffix) = (length, ".eml")
        case .path(let path): (size, suffix) = (path.utf8.count + 1, ".path")
        }
        guard Self.makeDirectories(directory + "/tmp") else {
            return .refused("cannot create the retry spool \(directory): \(String(cString: strerror(errno)))")
        }
        let (count, bytes) = usage()
        guard count < Self.maximumRecords, bytes + size <= Self.maximumBytes else {
            return .refused(
                "the retry spool \(directory) is full (\(count) records, \(bytes >> 10) KB; at most \(Self.maximumRecords) records and \(Self.maximumBytes >> 20) MB)"
            )
        }
        let (spoolCount, spoolBytes) = totalUsage()
        guard spoolCount < Self.maximumSpoolRecords, spoolBytes + size <= Self.maximumSpoolBytes else {
            let top = root ?? directory
            return .refused(
                "the retry spool \(top) is full (\(spoolCount) records, \(spoolBytes >> 20) MB for all accounts; at most \(Self.maximumSpoolRecords) records and \(Self.maximumSpoolBytes >> 20) MB)"
            )
        }
        let name = Self.uniqueName() + suffix
        let temporary = directory + "/tmp/" + name
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, recordMode)
        guard fd >= 0 else { return .refused("cannot write in the retry spool \(directory): \(String(cString: strerror(errno)))") }
        // open(2) applies the umask; the mode is the spool's, not the caller's umask.
        _ = fchmod(fd, recordMode)
        var written: Bool
        switch content {
        case .bytes(let bytes): written = Self.writeAll(fd, bytes[...])
        case .path(let path): written = Self.writeAll(fd, Array((path + "\n").utf8)[...])
        case .descriptor(let source, let length): written = Self.copy(from: source, size: length, to: fd)
        }
        let error = errno
        written = written && fsync(fd) == 0
        close(fd)
        guard written, rename(temporary, directory + "/" + name) == 0 else {
            let why = String(cString: strerror(written ? errno : error))
            unlink(temporary)
            return .refused("cannot write in the retry spool \(directory): \(why)")
        }
        return .kept(directory + "/" + name)
    }

    /// The number and total size of pending records.
    package func usage() -> (count: Int, bytes: Int) {
        var count = 0
        var bytes = 0
        for name in Self.names(in: directory) where Self.isRecord(name) {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            count += 1
            bytes += Int(info.st_size)
        }
        return (count, bytes)
    }

    /// The number and total size of pending records in the whole spool, every account's.
    package func totalUsage() -> (count: Int, bytes: Int) {
        let top = root.map { RetrySpool(directory: $0) } ?? RetrySpool(directory: directory)
        return top.accountSpools().map { $0.spool.usage() }.reduce(top.usage()) { ($0.count + $1.count, $0.bytes + $1.bytes) }
    }

    /// Pending records, oldest first (names begin with the time).
    package func pending() -> [String] {
        Self.names(in: directory).filter(Self.isRecord).sorted()
    }

    /// Records in `failed/`.
    package func failed() -> [String] {
        Self.names(in: directory + "/failed").filter(Self.isRecord).sorted()
    }

    /// Claims `name` for this process by renaming it into `claimed/`; nil when another run
    /// claimed it first (or it is gone).
    package func claim(_ name: String) -> String? {
        guard Self.makeDirectories(directory + "/claimed") else { return nil }
        let claimed = directory + "/claimed/" + name + ",\(getpid())"
        return rename(directory + "/" + name, claimed) == 0 ? claimed : nil
    }

    /// Puts a claimed record back for a later run.
    package func release(_ claimed: String, name: String) {
        rename(claimed, directory + "/" + name)
    }

    /// Moves a claimed record to `failed/`, with the reason beside it.
    package func fail(_ claimed: String, name: String, reason: String) {
        guard Self.makeDirectories(directory + "/failed") else { return }
        let reasonPath = directory + "/failed/" + name + ".reason"
        let fd = open(reasonPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, recordMode)
        if fd >= 0 {
            _ = Self.writeAll(fd, Array((reason + "\n").utf8)[...])
            close(fd)
        }
        rename(claimed, directory + "/failed/" + name)
    }

    /// Records left in `claimed/` by runs that ended without finishing (killed, crashed): put
    /// back, so they are not lost. Files in `tmp/` an hour old are records whose writer was
    /// stopped half-way (a time budget that ran out while a large copy was written): removed.
    package func reclaimAbandoned() {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        for entry in Self.names(in: directory + "/tmp") {
            var info = stat()
            let path = directory + "/tmp/" + entry
            if stat(path, &info) == 0, now.tv_sec - info.st_mtim.tv_sec > 3600 { unlink(path) }
        }
        for entry in Self.names(in: directory + "/claimed") {
            guard let comma = entry.lastIndex(of: ","), let pid = Int32(entry[entry.index(after: comma)...]) else { continue }
            if kill(pid, 0) == 0 || errno == EPERM { continue }
            rename(directory + "/claimed/" + entry, directory + "/" + String(entry[..<comma]))
        }
    }

    /// 0660 in a group-writable spool, else 0600.
    private var recordMode: mode_t {
        var info = stat()
        guard stat(directory, &info) == 0 else { return 0o600 }
        return info.st_mode & 0o020 != 0 ? 0o660 : 0o600
    }

    static func isRecord(_ name: String) -> Bool {
        !name.hasPrefix(".") && (name.hasSuffix(".eml") || name.hasSuffix(".path"))
    }

    /// `SECONDS.MMICROSECONDS.PPIDRRANDOM.HOST`, as Maildir names (unique without a lock).
    static func uniqueName() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .map { $0 == "/" || $0 == ":" || $0 == "," ? "_" : $0 }
        let random = UInt64.random(in: 0...UInt64.max)
        let micro = now.tv_nsec / 1000
        return "\(now.tv_sec).M\(micro)P\(getpid())R\(String(random, radix: 16)).\(String(hostName))"
    }

    package static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (cwd == "/" ? "" : cwd) + "/" + path
    }

    /// Why records cannot be kept here (the directory cannot be made, or written by this
    /// process); nil when they can.
    package var unwritable: String? {
        guard Self.makeDirectories(directory) else { return "the retry spool \(directory) cannot be made (retry-spool)" }
        guard access(directory, W_OK | X_OK) == 0 else { return "the retry spool \(directory) cannot be written by this user (retry-spool)" }
        return nil
    }

    /// `mkdir -p`, new directories 0700 (0770 below a group-writable parent).
    static func makeDirectories(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_mode & S_IFMT == S_IFDIR }
        guard let slash = path.lastIndex(of: "/") else { return false }
        let parent = String(path[..<slash])
        if !parent.isEmpty, !makeDirectories(parent) { return false }
        var parentInfo = stat()
        let shared = stat(parent.isEmpty ? "/" : parent, &parentInfo) == 0 && parentInfo.st_mode & 0o020 != 0 && !parent.isEmpty
        if mkdir(path, shared ? 0o770 : 0o700) != 0 && errno != EEXIST { return false }
        return true
    }

    static func names(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, base + offset, buffer.count - offset)
                if n > 0 { offset += n } else if n < 0, errno == EINTR { continue } else { return false }
            }
            return true
        }
    }

    static func copy(from source: Int32, size: Int, to fd: Int32) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var position = 0
        while position < size {
            let n = chunk.withUnsafeMutableBytes { pread(source, $0.baseAddress, min($0.count, size - position), off_t(position)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0, writeAll(fd, chunk[0..<n]) else { return false }
            position += n
        }
        return true
    }
}
