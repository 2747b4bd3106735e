import Delivery
import EventStore
import Glibc
package import ICalendar
import ReservoirBase
import Synchronization
package import TOML

/// A setting's value, as a file or the command line gives it.
package enum SettingValue: Sendable, Equatable {
    case text(String)
    case texts([String])
    case number(Int)
    case flag(Bool)
}

extension SettingValue {
    /// The value as it may be shown: a store or calendar URL may hold a password, which is never
    /// shown (``URLText``, RFC 3986 §3.2.1).
    package var withoutCredentials: SettingValue {
        switch self {
        case .text(let text): .text(URLText.withoutCredentials(text))
        case .texts(let texts): .texts(texts.map(URLText.withoutCredentials))
        case .number, .flag: self
        }
    }
}

/// Where a setting came from, for `reservoir config`.
package enum SettingSource: Sendable, Equatable, CustomStringConvertible {
    case file(String, line: Int)
    case commandLine
    /// Made from the account's own address (`me`) or its table.
    case account(String)
    case standard

    package var description: String {
        switch self {
        case .file(let path, let line): "\(path):\(line)"
        case .commandLine: "command line"
        case .account(let address): "the account \(address)"
        case .standard: "default"
        }
    }
}

/// Why a configuration file cannot be used: the file, the position when there is one, and a
/// reason for people. Equal by code.
package struct ConfigurationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// `$RESERVOIR_CONFIG` names a file that does not exist.
        case notFound = "not-found"
        /// The file exists but cannot be read.
        case unreadable
        /// Not TOML 1.0.0 (``TOMLError``).
        case syntax
        /// A key that is not a setting, or one the file may not set.
        case unknownKey = "unknown-key"
        case wrongType = "wrong-type"
        /// A value that fits the type but not the option (`allow-domain = ["/etc/x"]`, a
        /// negative time-out).
        case wrongValue = "wrong-value"
        /// A file the setting names (keys, allowed-domains, netrc, calendar-ca) cannot be read.
        case unreadableFile = "unreadable-file"
    }

    package var code: Code
    package var file: String
    package var position: TOMLPosition?
    package var reason: String

    package init(_ code: Code, file: String, at position: TOMLPosition? = nil, _ reason: String) {
        self.code = code
        self.file = file
        self.position = position
        self.reason = reason
    }

    package var description: String {
        guard let position else { return "\(file): \(reason)" }
        return "\(file):\(position.line):\(position.column): \(reason)"
    }

    package static func == (a: Self, b: Self) -> Bool { a.code == b.code }
}

/// The process's configuration (``ConfigurationLoad/process``).
private let processLoad = Mutex<ConfigurationLoad?>(nil)

/// What looking for the configuration file found.
package enum ConfigurationLoad: Sendable {
    /// No file: defaults and the command line.
    case none
    case loaded(ConfigurationFile)
    case invalid(ConfigurationProblem)

    /// The file of this process, looked for once (``ConfigurationFile/load(environment:)``),
    /// until a long-running program reloads it (``reloadProcess()``).
    package static var process: ConfigurationLoad {
        processLoad.withLock { load in
            if let load { return load }
            let made = reread()
            load = made
            return made
        }
    }

    /// The file looked for again, as a reload (SIGHUP) reads it.
    package static func reread() -> ConfigurationLoad {
        ConfigurationFile.load(environment: { name in getenv(name).map { String(cString: $0) } })
    }

    /// A reload (SIGHUP) of `watch` or `serve`: the file read again becomes ``process``, which
    /// every setting of the command reads; the one it replaces is returned, for
    /// ``restoreProcess(_:)`` when the new settings do not pass the start's checks.
    package static func reloadProcess() -> ConfigurationLoad {
        let fresh = reread()
        return processLoad.withLock { load in
            let previous = load ?? fresh
            load = fresh
            return previous
        }
    }

    package static func restoreProcess(_ previous: ConfigurationLoad) {
        processLoad.withLock { $0 = previous }
    }

    package var file: ConfigurationFile? {
        if case .loaded(let file) = self { file } else { nil }
    }

    package var problem: ConfigurationProblem? {
        if case .invalid(let problem) = self { problem } else { nil }
    }

    /// The calendar writer the file's export settings make (`reminders`, `calendar-color`);
    /// the defaults without a file.
    package var calendarWriter: ICalendarWriter {
        ICalendarWriter(reminders: file?.reminders ?? .standard, color: file?.calendarColor)
    }
}

/// The configuration file (docs/CONFIGURATION.md): TOML whose keys are the long names of the
/// ``CommonOption``s that have a ``CommonOption/fileType``, read and checked whole before any
/// setting is used.
package struct ConfigurationFile: Sendable, Equatable {
    package let path: String
    package private(set) var values: [CommonOption: SettingValue] = [:]
    package private(set) var lines: [CommonOption: Int] = [:]
    /// `reminders`: `false` for none, or a table of a lead per category (``readReminders``);
    /// nil when the file does not say, and the defaults apply.
    package private(set) var reminders: ReminderSettings?
    /// The line of `reminders`, for `reservoir config`.
    package private(set) var remindersLine: Int?
    /// `calendar-color`: the exported calendar's colour (a CSS3 name, RFC 7986 §5.9).
    package private(set) var calendarColor: String?
    /// The line of `calendar-color`.
    package private(set) var calendarColorLine: Int?

    /// `[accounts."ADDRESS"]` tables: what the site adds for each account, by normalized address.
    package private(set) var accounts: [String: AccountSettings] = [:]

    /// `watch`: the mailboxes `reservoir watch` reads when none is named on its command line
    /// (`imaps://USER@HOST[:PORT]/MAILBOX`, checked by the command).
    package private(set) var watch: [String] = []

    /// Keys that are no command's option: the file alone sets them.
    static let exportKeys = ["reminders", "calendar-color", "accounts", "watch"]

    /// Where it is looked for, in order: `$RESERVOIR_CONFIG` (which must exist when set),
    /// `$XDG_CONFIG_HOME/reservoir/config.toml` (`$HOME/.config/…` without it), then
    /// `/etc/reservoir/config.toml`. The first that exists is read.
    package static func candidates(environment: (String) -> String?) -> [String] {
        var paths: [String] = []
        if let xdg = environment("XDG_CONFIG_HOME"), xdg.hasPrefix("/") {
            paths.append(xdg + "/reservoir/config.toml")
        } else if let home = environment("HOME"), home.hasPrefix("/") {
            paths.append(home + "/.config/reservoir/config.toml")
        }
        paths.append(systemPath)
        return paths
    }

    package static let systemPath = "/etc/reservoir/config.toml"

    /// Finds and reads the file for the environment; `.none` when there is none.
    package static func load(environment: (String) -> String?) -> ConfigurationLoad {
        if let named = environment("RESERVOIR_CONFIG"), !named.isEmpty {
            guard access(named, F_OK) == 0 else {
                return .invalid(ConfigurationProblem(.notFound, file: named, "RESERVOIR_CONFIG names a file that does not exist"))
            }
            return read(path: named, home: environment("HOME"))
        }
        for path in candidates(environment: environment) where access(path, F_OK) == 0 {
            return read(path: path, home: environment("HOME"))
        }
        return .none
    }

    /// Reads and checks the file at `path`.
    package static func read(path: String, home: String?) -> ConfigurationLoad {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: TOMLLimits.maximumDocumentBytes + 1)
        } catch {
            return .invalid(ConfigurationProblem(.unreadable, file: path, "cannot read the configuration file: \(error)"))
        }
        switch parse(bytes, path: path, home: home) {
        case .success(let file): return .loaded(file)
        case .failure(let problem): return .invalid(problem)
        }
    }

    /// Checks a document's keys, types and values. Relative file names are taken from the
    /// file's directory, and `~/` from `home`.
    package static func parse(_ bytes: [UInt8], path: String, home: String?) -> Result<ConfigurationFile, ConfigurationProblem> {
        let table: TOMLTable
        switch TOMLReader.read(bytes) {
        case .success(let read): table = read
        case .failure(let error): return .failure(ConfigurationProblem(.syntax, file: path, at: error.position, error.detail))
        }
        var file = ConfigurationFile(path: path)
        for key in table.keys {
            guard let entry = table[key] else { continue }
            let problem = { (code: ConfigurationProblem.Code, at: TOMLPosition, reason: String) in
                ConfigurationProblem(code, file: path, at: at, reason)
            }
            if key == "reminders" {
                switch readReminders(entry) {
                case .success(let reminders):
                    file.reminders = reminders
                    file.remindersLine = entry.position.line
                    continue
                case .failure(let failure):
                    return .failure(problem(failure.code, failure.position, failure.reason))
                }
            }
            if key == "accounts" {
                switch readAccounts(entry, home: home) {
                case .success(let accounts):
                    file.accounts = accounts
                    continue
                case .failure(let failure):
                    return .failure(problem(failure.code, failure.position, failure.reason))
                }
            }
            if key == "watch" {
                let wrongType = problem(.wrongType, entry.position, "watch must be an array of strings (imaps:// URLs)")
                guard case .array(let elements) = entry.value else { return .failure(wrongType) }
                var urls: [String] = []
                for element in elements {
                    guard case .string(let text) = element.value else { return .failure(wrongType) }
                    urls.append(text)
                }
                file.watch = urls
                continue
            }
            if key == "calendar-color" {
                guard case .string(let text) = entry.value else {
                    return .failure(problem(.wrongType, entry.position, "calendar-color must be a string, not \(Self.article(entry.value.typeName))"))
                }
                guard let name = ICalendarWriter.colorName(text) else {
                    return .failure(
                        problem(
                            .wrongValue, entry.position,
                            "calendar-color must be a CSS3 colour name such as \"darkorange\" (RFC 7986 §5.9 takes names, not #rrggbb)"))
                }
                file.calendarColor = name
                file.calendarColorLine = entry.position.line
                continue
            }
            guard let option = CommonOption(rawValue: key) else {
                return .failure(problem(.unknownKey, entry.position, "unknown key \(Self.quoted(key)); the keys are \(Self.keyList)"))
            }
            guard let type = option.fileType else {
                return .failure(
                    problem(.unknownKey, entry.position, "\(key) cannot be set in the configuration file: it \(option.fileExclusion ?? "")"))
            }
            let wrongType = problem(.wrongType, entry.position, "\(key) must be \(type.name), not \(Self.article(entry.value.typeName))")
            var value: SettingValue
            switch (type, entry.value) {
            case (.string, .string(let text)):
                if option == .recipientDelimiter, let misuse = option.misuse(of: text, spelled: { $0.rawValue }) {
                    return .failure(problem(.wrongValue, entry.position, misuse))
                }
                value = .text(text)
            case (.integer, .integer(let n)):
                guard n >= 0, n <= Int64(Int32.max) else { return .failure(problem(.wrongValue, entry.position, "\(key) must not be negative")) }
                value = .number(Int(n))
            case (.boolean, .boolean(let b)): value = .flag(b)
            case (.strings, .array(let elements)):
                var texts: [String] = []
                for element in elements {
                    guard case .string(let text) = element.value else {
                        return .failure(
                            problem(
                                .wrongType, element.position, "\(key) must be \(type.name); this element is \(Self.article(element.value.typeName))"))
                    }
                    if let misuse = option.misuse(of: text, spelled: { $0.rawValue }) {
                        return .failure(problem(.wrongValue, element.position, misuse))
                    }
                    texts.append(text)
                }
                value = .texts(texts)
            default:
                return .failure(wrongType)
            }
            if option == .store, case .text(let url) = value, let prefix = HomePath.pathPrefix(.store, url) {
                value = .text(prefix + Self.resolve(String(url.dropFirst(prefix.count)), relativeTo: path, home: home))
            }
            if option == .calendar, case .texts(let urls) = value {
                let expanded = urls.map { HomePath.expand(.calendar, $0, home: home) }
                for url in expanded {
                    // A template is checked as an account's would be.
                    do { _ = try CalendarDestination(parsing: AccountTemplate.expand(url, for: AccountTemplate.sample)) } catch {
                        return .failure(problem(.wrongValue, entry.position, "calendar: \(error.description)"))
                    }
                }
                value = .texts(expanded)
            }
            if option.takesPath, !option.namesFile, case .text(let name) = value {
                value = .text(Self.resolve(name, relativeTo: path, home: home))
            } else if option.namesFile, case .text(let name) = value {
                let resolved = Self.resolve(name, relativeTo: path, home: home)
                if access(resolved, F_OK) != 0, let misuse = option.misuse(of: name, spelled: { $0.rawValue }) {
                    return .failure(problem(.wrongValue, entry.position, misuse))
                }
                guard access(resolved, R_OK) == 0 else {
                    return .failure(
                        problem(.unreadableFile, entry.position, "\(key) names \(resolved), which cannot be read (\(FileReadError.text(errno)))"))
                }
                value = .text(resolved)
            }
            if option.namesFile, case .texts(let names) = value {
                var resolvedNames: [String] = []
                for name in names {
                    let resolved = Self.resolve(name, relativeTo: path, home: home)
                    guard access(resolved, R_OK) == 0 else {
                        return .failure(
                            problem(.unreadableFile, entry.position, "\(key) names \(resolved), which cannot be read (\(FileReadError.text(errno)))"))
                    }
                    resolvedNames.append(resolved)
                }
                value = .texts(resolvedNames)
            }
            file.values[option] = value
            file.lines[option] = entry.position.line
        }
        return .success(file)
    }

    /// Why `reminders` is refused: the code, where, and a sentence.
    struct ReminderProblem: Error {
        var code: ConfigurationProblem.Code
        var position: TOMLPosition
        var reason: String
    }

    /// `reminders = false` (none), `reminders = true` (the defaults), or a table whose keys are
    /// categories and whose values are RFC 5545 §3.3.6 durations before the start (`"PT2H"`,
    /// `"P1D"`) or `"off"`; categories the table leaves out keep their default.
    static func readReminders(_ entry: TOMLEntry) -> Result<ReminderSettings, ReminderProblem> {
        switch entry.value {
        case .boolean(let on): return .success(on ? .standard : .off)
        case .table(let table):
            var settings = ReminderSettings.standard
            let categories = EventCategory.allCases.map(\.rawValue).joined(separator: ", ")
            for key in table.keys {
                guard let item = table[key] else { continue }
                guard let category = EventCategory(rawValue: key) else {
                    return .failure(
                        ReminderProblem(
                            code: .unknownKey, position: item.position,
                            reason: "reminders has no category \(quoted(key)); the categories are \(categories)"))
                }
                guard case .string(let text) = item.value else {
                    return .failure(
                        ReminderProblem(
                            code: .wrongType, position: item.position,
                            reason: "reminders.\(key) must be a string (\"PT2H\", \"P1D\" or \"off\"), not \(article(item.value.typeName))"))
                }
                if text == "off" {
                    settings.leads[category] = nil
                } else if let lead = ReminderSettings.lead(parsing: text) {
                    settings.leads[category] = lead
                } else {
                    return .failure(
                        ReminderProblem(
                            code: .wrongValue, position: item.position,
                            reason:
                                "reminders.\(key) must be a duration before the start such as \"PT2H\" or \"P1D\" (RFC 5545 §3.3.6, at most 28 days), or \"off\""
                        ))
                }
            }
            return .success(settings)
        default:
            return .failure(
                ReminderProblem(
                    code: .wrongType, position: entry.position,
                    reason: "reminders must be a table of durations per category, or a boolean, not \(article(entry.value.typeName))"))
        }
    }

    /// `[accounts."ADDRESS"]`: a table of tables, one per account, each taking ``AccountSettings/keys``
    /// as arrays of strings. Addresses are read as `--account` reads them, so one mailbox is one
    /// table however it is written; a calendar may be a template (``AccountTemplate``) and is
    /// checked as this account's.
    static func readAccounts(_ entry: TOMLEntry, home: String?) -> Result<[String: AccountSettings], ReminderProblem> {
        func refuse(_ code: ConfigurationProblem.Code, _ position: TOMLPosition, _ reason: String) -> Result<
            [String: AccountSettings], ReminderProblem
        > {
            .failure(ReminderProblem(code: code, position: position, reason: reason))
        }
        guard case .table(let table) = entry.value else {
            return refuse(
                .wrongType, entry.position,
                "accounts must be a table of accounts ([accounts.\"jane@example.org\"]), not \(article(entry.value.typeName))")
        }
        var accounts: [String: AccountSettings] = [:]
        for address in table.keys {
            guard let item = table[address] else { continue }
            let account: Account
            do { account = try AccountAddress.parse(address) } catch {
                return refuse(.wrongValue, item.position, "accounts: \(quoted(address)) is not a mailbox address (jane@example.org)")
            }
            guard !account.isImplicit, accounts[account.address] == nil else {
                return refuse(.wrongValue, item.position, "accounts: \(quoted(address)) names an account already given")
            }
            guard case .table(let settingsTable) = item.value else {
                return refuse(.wrongType, item.position, "accounts.\(quoted(address)) must be a table, not \(article(item.value.typeName))")
            }
            var settings = AccountSettings(line: item.position.line)
            for key in settingsTable.keys {
                guard let setting = settingsTable[key] else { continue }
                guard AccountSettings.keys.contains(key) else {
                    return refuse(
                        .unknownKey, setting.position,
                        "accounts.\(quoted(address)) has no key \(quoted(key)); an account takes \(AccountSettings.keys.joined(separator: ", "))")
                }
                guard case .array(let elements) = setting.value else {
                    return refuse(
                        .wrongType, setting.position,
                        "accounts.\(quoted(address)).\(key) must be an array of strings, not \(article(setting.value.typeName))")
                }
                var texts: [String] = []
                for element in elements {
                    guard case .string(let text) = element.value else {
                        return refuse(.wrongType, element.position, "accounts.\(quoted(address)).\(key) must be an array of strings")
                    }
                    switch key {
                    case "aliases":
                        guard text.contains("@"), !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
                            return refuse(
                                .wrongValue, element.position,
                                "accounts.\(quoted(address)).aliases takes addresses (jane@example.net, or @example.net for a domain)")
                        }
                    case "allow-domain":
                        if let misuse = CommonOption.allowDomain.misuse(of: text, spelled: { $0.rawValue }) {
                            return refuse(.wrongValue, element.position, misuse)
                        }
                    case "calendar":
                        let expanded = HomePath.expand(.calendar, text, home: home)
                        do { _ = try CalendarDestination(parsing: AccountTemplate.expand(expanded, for: account)) } catch {
                            return refuse(.wrongValue, element.position, "accounts.\(quoted(address)).calendar: \(error.description)")
                        }
                        texts.append(expanded)
                        continue
                    default: break
                    }
                    texts.append(text)
                }
                switch key {
                case "aliases": settings.aliases = texts
                case "calendar": settings.calendar = texts
                case "allow-domain": settings.allowDomain = texts
                case "watch": settings.watch = texts
                default: settings.allowPassType = texts
                }
            }
            accounts[account.address] = settings
        }
        return .success(accounts)
    }

    /// `~/x` and `$HOME/x` from `home` (``HomePath``), a relative name from the configuration
    /// file's directory.
    static func resolve(_ name: String, relativeTo path: String, home: String?) -> String {
        let name = HomePath.expand(name, home: home)
        guard !name.isEmpty, !name.hasPrefix("/"), let slash = path.lastIndex(of: "/") else { return name }
        return String(path[...slash]) + name
    }

    /// Every key the file takes, for messages.
    static var keyList: String {
        (CommonOption.allCases.filter { $0.fileType != nil }.map(\.rawValue) + exportKeys).joined(separator: ", ")
    }

    static func quoted(_ key: String) -> String {
        // Keys come from the file: only printable ASCII is shown as it is.
        String(String.UnicodeScalarView(key.unicodeScalars.prefix(64).map { $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }))
    }

    static func article(_ type: String) -> String {
        (type.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + type
    }
}
