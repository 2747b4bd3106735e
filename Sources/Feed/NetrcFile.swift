import ReservoirBase

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

/// A netrc file as ftp(1), curl and Python's `netrc` module read it: read by ``NetrcText``,
/// the one netrc reader, whose entries it keeps.
public struct NetrcFile: Sendable, Equatable {
    public var entries: [NetrcEntry] { read.map { NetrcEntry(machine: $0.machine, login: $0.login, password: $0.password) } }
    private var read: [NetrcText.Entry]

    public init(entries: [NetrcEntry]) {
        read = entries.map { NetrcText.Entry(machine: $0.machine, login: $0.login, password: $0.password) }
    }

    public init(text: String) { read = NetrcText.entries(text) }

    /// Every entry for `machine` (names compared without case) with both a login and a password,
    /// in the file's order: a site's server lists one per account.
    public func allCredentials(for machine: String) -> [BasicCredentials] {
        read.filter { $0.names(machine) }.compactMap { entry in
            guard let login = entry.login, let password = entry.password else { return nil }
            return BasicCredentials(user: login.utf8, password: password.utf8)
        }
    }

    /// The first entry for `machine` (names compared without case, as host names), else the
    /// `default` entry; it must have both a login and a password.
    public func credentials(for machine: String) -> BasicCredentials? {
        let entry = read.first { $0.names(machine) } ?? read.first { $0.machine == nil }
        guard let entry, let login = entry.login, let password = entry.password else { return nil }
        return BasicCredentials(user: login.utf8, password: password.utf8)
    }
}
