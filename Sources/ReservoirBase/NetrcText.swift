/// A netrc file's entries as ftp(1), curl and Python's `netrc` module read them:
/// whitespace-separated tokens `machine NAME`, `default`, `login NAME`, `password SECRET`,
/// `account …`, and `macdef NAME` whose macro runs to the next empty line; a token may be
/// double-quoted with backslash escapes (curl's extension, so a password can hold spaces). `#`
/// starts a comment at a token's start. Read by `serve` (one login per account) and by the
/// CalDAV client (one calendar login per account).
package enum NetrcText {
    /// One `machine` (nil for `default`) entry with what it names.
    package struct Entry: Sendable, Equatable {
        package var machine: String?
        package var login: String?
        package var password: String?

        package init(machine: String?, login: String?, password: String?) {
            self.machine = machine
            self.login = login
            self.password = password
        }

        /// Whether this is the `machine` entry for `host`, compared without case as host names
        /// are (the `default` entry names no host).
        package func names(_ host: String) -> Bool {
            machine.map { $0.lowercased() == host.lowercased() } ?? false
        }
    }

    package static func entries(_ text: String) -> [Entry] {
        var entries: [Entry] = []
        var tokens = NetrcTokens(Array(text.utf8))
        while let word = tokens.next() {
            switch word {
            case "machine":
                entries.append(Entry(machine: tokens.next() ?? "", login: nil, password: nil))
            case "default":
                entries.append(Entry(machine: nil, login: nil, password: nil))
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
        return entries
    }
}

/// The tokens of a netrc file.
package struct NetrcTokens {
    package let bytes: [UInt8]
    package var index = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d }

    package mutating func next() -> String? {
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
    package mutating func skipMacro() {
        while index < bytes.count, bytes[index] != 0x0a { index += 1 }
        index += 1
        while index < bytes.count {
            if bytes[index] == 0x0a { return }
            while index < bytes.count, bytes[index] != 0x0a { index += 1 }
            index += 1
        }
    }
}
