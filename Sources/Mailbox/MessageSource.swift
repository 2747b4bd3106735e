import Glibc
import MIME
import ReservoirBase

/// Where a message came from.
public struct MessageOrigin: Sendable, Equatable {
    /// The file it was read from; nil for standard input.
    public var path: String?
    /// Maildir info flags ("FS" from "…:2,FS"; RFC-less convention of the Maildir spec).
    public var maildirFlags: String?
    /// 0-based position in an mbox file.
    public var mboxIndex: Int?
    /// Size and modification time of a Maildir or message file, for incremental scans.
    public var stamp: FileStamp?

    public init(path: String? = nil, maildirFlags: String? = nil, mboxIndex: Int? = nil, stamp: FileStamp? = nil) {
        self.path = path
        self.maildirFlags = maildirFlags
        self.mboxIndex = mboxIndex
        self.stamp = stamp
    }

    /// What identifies a message file across Maildir moves: the path with `cur/` or `new/`
    /// dropped and the info part (`:2,FLAGS` or `;2,FLAGS`) removed, so reading it (new → cur)
    /// or flagging it does not make it new again. Nil for stdin and mbox messages.
    public var stateKey: String? {
        guard let path, mboxIndex == nil else { return nil }
        // On bytes: this runs for every file of a scan.
        let bytes = Array(path.utf8)
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        let nameStart = slash.map { $0 + 1 } ?? 0
        let nameEnd = bytes[nameStart...].firstIndex { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ";") } ?? bytes.count
        // The directory kept: everything before the last "/", less a last "cur" or "new".
        var directory: Range<Int>?
        if let slash {
            let parentStart = bytes[..<slash].lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            let parent = bytes[parentStart..<slash]
            if parent.elementsEqual("cur".utf8) || parent.elementsEqual("new".utf8) {
                directory = parentStart == 0 ? nil : 0..<(parentStart - 1)
            } else {
                directory = 0..<slash
            }
        }
        var key = [UInt8]()
        key.reserveCapacity(bytes.count)
        if let directory {
            key += bytes[directory]
            key.append(UInt8(ascii: "/"))
        }
        key += bytes[nameStart..<nameEnd]
        return String(decoding: key, as: UTF8.self)
    }

    /// When the message was delivered, as far as its file says (Unix seconds): for a file in a
    /// Maildir's `new/` or `cur/`, the time its name begins with (the delivery time, as the
    /// Maildir specification names files: `TIME.UNIQUE.HOST`, at least 9 digits), else the
    /// file's modification time, which a delivery sets and a rename from `new/` to `cur/`
    /// keeps (a retry record's spooled copy: when it was kept). Nil for standard input and mbox
    /// messages: they arrive as they are read.
    public var deliveredAt: Int64? {
        guard mboxIndex == nil else { return nil }
        let bytes = Array((path ?? "").utf8)
        if let slash = bytes.lastIndex(of: UInt8(ascii: "/")) {
            let folder = bytes[((bytes[..<slash].lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 }) ?? 0)..<slash]
            if folder.elementsEqual("new".utf8) || folder.elementsEqual("cur".utf8) {
                let digits = bytes[(slash + 1)...].prefix(while: ASCII.isDigit)
                let next = slash + 1 + digits.count
                if (9...12).contains(digits.count), next < bytes.count, bytes[next] == UInt8(ascii: "."),
                    let seconds = Int64(String(decoding: digits, as: UTF8.self))
                {
                    return seconds
                }
            }
        }
        return stamp?.modified
    }
}

/// A file's size and modification time (seconds): unchanged stamps mean an unchanged message.
public struct FileStamp: Sendable, Equatable, Hashable {
    public var size: Int64
    public var modified: Int64

    public init(size: Int64, modified: Int64) {
        self.size = size
        self.modified = modified
    }

    /// stat(2) of a path; nil when it cannot be read.
    public static func of(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec))
    }
}

/// One message's bytes as stored, and where they came from.
public struct RawMessage: Sendable {
    /// The whole message; empty when it is too large to hold and left in ``file``.
    public var bytes: [UInt8]
    public var origin: MessageOrigin
    /// A message larger than ``Limits/wholeMessageBytes``: read in pieces when analysed.
    public var file: MessageFile?
    /// Found but not read yet (``MessageSource/skipping(_:deferringReads:)``): ``file`` names
    /// it, and ``readingDeferred()`` reads it.
    var isDeferred = false

    /// Size of the message in bytes.
    public var size: Int { file?.size ?? bytes.count }

    public init(bytes: [UInt8], origin: MessageOrigin) {
        self.bytes = bytes
        self.origin = origin
    }

    public init(file: MessageFile, origin: MessageOrigin) {
        self.bytes = []
        self.origin = origin
        self.file = file
    }

    /// The message with all its bytes in memory, reading ``file`` whole: for tools that show
    /// every part (`reservoir parts`) or measure parsing itself.
    public func whole() throws(MessageSourceError) -> RawMessage {
        guard let file else { return self }
        switch file.location {
        case .path(let path):
            return RawMessage(bytes: try FileSystem.readFile(path), origin: origin)
        case .descriptor(let fd):
            guard lseek(fd, 0, SEEK_SET) == 0 else {
                throw MessageSourceError(.unreadable, path: origin.path ?? "-", FileSystem.errorText(errno))
            }
            return RawMessage(bytes: try FileSystem.readAll(fd, sizeHint: file.size, path: origin.path ?? "-"), origin: origin)
        }
    }

    /// The message itself when a source deferred reading it (the thread that analyses it reads
    /// it, a scan's worker rather than the thread listing the files): read as the source would
    /// have, whole or left in its large file. Nil when the file can no longer be read, a
    /// message the source would have skipped.
    public func readingDeferred() -> RawMessage? {
        guard isDeferred, let file, case .path(let path) = file.location else { return self }
        return try? Self.read(path: path, origin: origin)  // origin.stamp: found with the file
    }

    /// A message file: read whole up to ``Limits/wholeMessageBytes``, left in its file beyond.
    static func read(path: String, origin: MessageOrigin) throws(MessageSourceError) -> RawMessage {
        if let stamp = origin.stamp ?? FileStamp.of(path), stamp.size > Int64(Limits.wholeMessageBytes) {
            guard access(path, R_OK) == 0 else {
                throw MessageSourceError(.unreadable, path: path, FileSystem.errorText(errno))
            }
            return RawMessage(file: MessageFile(.path(path), size: Int(stamp.size)), origin: origin)
        }
        return RawMessage(bytes: try FileSystem.readFile(path), origin: origin)
    }
}

/// A message kept in a file rather than in memory, read in pieces (``MessageSkeleton``) when
/// analysed: a large message file, or the spool a filter copied a large message to.
public struct MessageFile: Sendable {
    public enum Location: Sendable {
        /// Opened when read (a scan holds no descriptor per queued message).
        case path(String)
        /// An open file owned by the caller.
        case descriptor(Int32)
    }

    public let location: Location
    /// The message's size in bytes (when it was found).
    public let size: Int

    public init(_ location: Location, size: Int) {
        self.location = location
        self.size = size
    }

    /// Runs `body` with a descriptor of the file (opened and closed around it for a path);
    /// nil when the file cannot be opened.
    public func withDescriptor<T>(_ body: (Int32) -> T) -> T? {
        switch location {
        case .descriptor(let fd):
            return body(fd)
        case .path(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            return body(fd)
        }
    }
}

/// Every message under a path: a Maildir (cur/ and new/, recursing into Maildir++ `.Folder`
/// subfolders, skipping tmp/ and dotfiles, sorted by name for a stable order), an mbox (split
/// at `From ` lines, `>From ` unescaped), a directory of message files, or a single file.
///
/// Maildir files are read as the sequence is iterated; a file that vanished meanwhile is skipped.
public struct MessageSource: Sequence, Sendable {
    enum Entry: Sendable {
        /// A file read when reached; `maildirFlags` from its name.
        case file(path: String, maildirFlags: String?)
        /// An mbox already read and split.
        case mbox(path: String, messages: [[UInt8]])
    }

    let entries: [Entry]

    /// Reads the structure under `path`. Throws when the path is missing or unreadable, or is a
    /// directory holding no Maildir and no message files, or only files of which none looks
    /// like mail (``MessageShape``).
    public init(path: String) throws {
        switch FileSystem.kind(path) {
        case .missing:
            throw MessageSourceError(.notFound, path: path, "no such file or directory")
        case .other:
            throw MessageSourceError(.notMail, path: path, "not a regular file or directory")
        case .file:
            entries = [try Self.fileEntry(path, maildirFlags: nil)]
        case .directory:
            var found: [Entry] = []
            if try Self.collectMaildir(path, into: &found) {
                entries = found
            } else {
                // A plain directory of message files (or mboxes).
                for (name, kind) in try FileSystem.entries(path) where !name.hasPrefix(".") {
                    let child = Self.join(path, name)
                    if (kind ?? FileSystem.kind(child)) == .file { found.append(try Self.fileEntry(child, maildirFlags: nil)) }
                }
                guard !found.isEmpty else {
                    throw MessageSourceError(.notMail, path: path, "neither a Maildir (no cur/ or new/) nor a directory of message files")
                }
                // A directory of anything else (a mistyped path, ~/Documents) is not read as mail.
                guard found.contains(where: Self.looksLikeMessage) else {
                    throw MessageSourceError(
                        .notMail, path: path,
                        "no file here looks like mail (not a Maildir with cur/ or new/, and no file starts with a header section or an mbox From line); name the files to read them anyway"
                    )
                }
                entries = found
            }
        }
    }

    /// One message from a file, whole (no mbox splitting).
    public static func file(_ path: String) throws -> RawMessage {
        try RawMessage.read(path: path, origin: MessageOrigin(path: path))
    }

    /// One message from standard input (a large one is left in a file, see ``StandardInput``).
    public static func standardInput() throws -> RawMessage {
        try StandardInput.message()
    }

    /// Files for which this returns true are not read (incremental scans); it gets the
    /// file's ``MessageOrigin/stateKey`` and stamp. Mbox files are always read.
    public typealias UnchangedTest = (_ key: String, _ stamp: FileStamp) -> Bool

    public func makeIterator() -> Iterator { Iterator(entries: entries, isUnchanged: nil, defersReading: false) }

    /// How many messages the sequence holds (files found, plus every message of each mbox).
    public var count: Int {
        entries.reduce(0) { total, entry in
            switch entry {
            case .file: total + 1
            case .mbox(_, let messages): total + messages.count
            }
        }
    }

    /// The messages, skipping files `isUnchanged` recognises.
    /// With `deferringReads`, message files are only found, not read: each comes as a
    /// placeholder that ``RawMessage/readingDeferred()`` reads, so that a scan's workers read
    /// the files they analyse (mbox messages, already read, come whole).
    public func skipping(_ isUnchanged: @escaping UnchangedTest, deferringReads: Bool = false) -> AnySequence<RawMessage> {
        let entries = entries
        return AnySequence { Iterator(entries: entries, isUnchanged: isUnchanged, defersReading: deferringReads) }
    }

    public struct Iterator: IteratorProtocol {
        let entries: [Entry]
        let isUnchanged: UnchangedTest?
        let defersReading: Bool
        var entryIndex = 0
        var mboxIndex = 0

        public mutating func next() -> RawMessage? {
            while entryIndex < entries.count {
                switch entries[entryIndex] {
                case .file(let path, let flags):
                    entryIndex += 1
                    let origin = MessageOrigin(path: path, maildirFlags: flags, stamp: FileStamp.of(path))
                    if let isUnchanged, let stamp = origin.stamp, let key = origin.stateKey, isUnchanged(key, stamp) { continue }
                    if defersReading, let stamp = origin.stamp {
                        var message = RawMessage(file: MessageFile(.path(path), size: Int(stamp.size)), origin: origin)
                        message.isDeferred = true
                        return message
                    }
                    guard var message = try? RawMessage.read(path: path, origin: origin) else { continue }
                    message.origin.stamp = origin.stamp ?? FileStamp.of(path)
                    return message
                case .mbox(let path, let messages):
                    if mboxIndex < messages.count {
                        defer { mboxIndex += 1 }
                        return RawMessage(bytes: messages[mboxIndex], origin: MessageOrigin(path: path, mboxIndex: mboxIndex))
                    }
                    entryIndex += 1
                    mboxIndex = 0
                }
            }
            return nil
        }
    }

    /// Whether an entry looks like mail (``MessageShape``): an mbox does; a file by its first bytes.
    private static func looksLikeMessage(_ entry: Entry) -> Bool {
        switch entry {
        case .mbox: return true
        case .file(let path, _):
            guard let prefix = FileSystem.prefix(path, MessageShape.prefixBytes) else { return false }
            return MessageShape.looksLikeMessage(prefix[...])
        }
    }

    /// A file: an mbox when it starts with a `From ` line, otherwise one message read later.
    private static func fileEntry(_ path: String, maildirFlags: String?) throws -> Entry {
        guard FileSystem.fileStarts(path, with: Array("From ".utf8)) else {
            // Fail now, not silently during iteration, when the file cannot be read.
            guard access(path, R_OK) == 0 else {
                throw MessageSourceError(.unreadable, path: path, FileSystem.errorText(errno))
            }
            return .file(path: path, maildirFlags: maildirFlags)
        }
        return .mbox(path: path, messages: Mbox.split(try FileSystem.readFile(path)))
    }

    /// Adds the messages of the Maildir at `path` and of its Maildir++ subfolders; false when
    /// `path` is not a Maildir (neither cur/ nor new/ nor a `.Folder` Maildir inside).
    private static func collectMaildir(_ path: String, into entries: inout [Entry]) throws -> Bool {
        var isMaildir = false
        var files: [(name: String, path: String, flags: String?)] = []
        for sub in ["cur", "new"] {
            let dir = join(path, sub)
            guard FileSystem.kind(dir) == .directory else { continue }
            isMaildir = true
            for (name, kind) in try FileSystem.entries(dir) where !name.hasPrefix(".") {
                let file = join(dir, name)
                guard (kind ?? FileSystem.kind(file)) == .file else { continue }
                files.append((name, file, maildirFlags(name)))
            }
        }
        files.sort { $0.name < $1.name }
        entries += files.map { .file(path: $0.path, maildirFlags: $0.flags) }
        // Maildir++: subfolders are ".Name" directories beside cur/new/tmp.
        for (name, kind) in try FileSystem.entries(path) where name.hasPrefix(".") {
            let sub = join(path, name)
            guard (kind ?? FileSystem.kind(sub)) == .directory else { continue }
            if try collectMaildir(sub, into: &entries) { isMaildir = true }
        }
        return isMaildir
    }

    /// "unique:2,FS" → "FS" (also ";2," as written on file systems without ":").
    static func maildirFlags(_ name: String) -> String? {
        let utf8 = Array(name.utf8)
        var i = utf8.count - 1
        while i >= 2 {
            if utf8[i] == UInt8(ascii: ","), utf8[i - 1] == UInt8(ascii: "2"),
                utf8[i - 2] == UInt8(ascii: ":") || utf8[i - 2] == UInt8(ascii: ";")
            {
                return String(decoding: utf8[(i + 1)...], as: UTF8.self)
            }
            i -= 1
        }
        return nil
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
