/// One `machine` (or `default`) entry of a netrc file.
public struct NetrcEntry: Sendable, Equatable {
    /// The machine name; nil for the `default` entry.
    public var machine: String?
    public var login: String?
    public var password: String?

    public init(machine: String?, login: String?, password: String?) {
        self.machine = machine
        self.login = login
        self.password = password
    }
}

/// A netrc file as ftp(1), curl and Python's `netrc` module read it: whitespace-separated tokens
/// `machine NAME`, `default`, `login NAME`, `password SECRET`, `account …`, and `macdef NAME`
/// whose macro runs to the next empty line; a token may be double-quoted with backslash escapes
/// (curl's extension, so a password can hold spaces). `#` starts a comment at a token's start.
public struct NetrcFile: Sendable, Equatable {
    public var entries: [NetrcEntry]

    public init(entries: [NetrcEntry]) { self.entries = entries }

    public init(text: String) {
        var entries: [NetrcEntry] = []
        var tokens = NetrcTokens(Array(text.utf8))
        while let word = tokens.next() {
            switch word {
            case "machine":
                entries.append(NetrcEntry(machine: tokens.next() ?? "", login: nil, password: nil))
            case "default":
                entries.append(NetrcEntry(machine: nil, login: nil, password: nil))
            case "login":
                let value = tokens.next()
                if !entries.isEmpty { entries[entries.count - 1].login = value }
            case "password":
                let value = tokens.next()
                if !entries.isEmpty { entries[entries.count - 1].password = value }
            case "account":
                _ = tokens.next()
            case "macdef":
                _ = tokens.next()
                tokens.skipMacro()
            default:
                // Unknown words are skipped, as curl does.
                continue
            }
        }
        self.entries = entries
    }

    /// Every entry for `machine` (names compared without case) with both a login and a password,
    /// in the file's order: a site's server lists one per account.
    public func allCredentials(for machine: String) -> [BasicCredentials] {
        entries.filter { $0.machine.map { $0.lowercased() == machine.lowercased() } ?? false }.compactMap { entry in
            guard let login = entry.login, let password = entry.password else { return nil }
            return BasicCredentials(user: login.utf8, password: password.utf8)
        }
    }

    /// The first entry for `machine` (names compared without case, as host names), else the
    /// `default` entry; it must have both a login and a password.
    public func credentials(for machine: String) -> BasicCredentials? {
        let entry =
            entries.first { $0.machine.map { $0.lowercased() == machine.lowercased() } ?? false }
            ?? entries.first { $0.machine == nil }
        guard let entry, let login = entry.login, let password = entry.password else { return nil }
        return BasicCredentials(user: login.utf8, password: password.utf8)
    }
}

/// The tokens of a netrc file.
struct NetrcTokens {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d }

    mutating func next() -> String? {
        while index < bytes.count {
            if Self.isSpace(bytes[index]) {
                index += 1
            } else if bytes[index] == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != 0x0a { index += 1 }
            } else {
                break
            }
        }
        guard index < bytes.count else { return nil }
        var token: [UInt8] = []
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                token.append(bytes[index])
                index += 1
            }
            index += 1
        } else {
            while index < bytes.count, !Self.isSpace(bytes[index]) {
                token.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: token, as: UTF8.self)
    }

    /// A macro definition runs to the first empty line (ftp(1)).
    mutating func skipMacro() {
        while index < bytes.count, bytes[index] != 0x0a { index += 1 }
        index += 1
        while index < bytes.count {
            if bytes[index] == 0x0a { return }
            while index < bytes.count, bytes[index] != 0x0a { index += 1 }
            index += 1
        }
    }
}
