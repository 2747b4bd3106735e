import ArgumentParser
import CommandCore
import EventStore
import Glibc
import ICalendar
import Output

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the effective settings and where each comes from, or check a configuration file.",
        discussion: """
            The configuration file is $RESERVOIR_CONFIG, else $XDG_CONFIG_HOME/reservoir/config.toml \
            (~/.config/reservoir/config.toml), else /etc/reservoir/config.toml: the first that \
            exists. Its keys are the long names of the shared options; an option on the command \
            line replaces its key (docs/CONFIGURATION.md).

            With --check, only the file is read: exit 0 when it is valid, 78 (EX_CONFIG) with the \
            file, line and column of the first problem when it is not.
            """)

    @Flag(name: .long, help: "Check the configuration file (FILE, or the one found) and exit 0 or 78.")
    var check = false

    @Argument(help: ArgumentHelp("The configuration file to read instead of the one found.", valueName: "file"))
    var file: String?

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var past: PastOptions
    @OptionGroup var retry: RetryOptions
    @OptionGroup var pending: PendingDaysOption

    @Option(name: .long(.authservID), help: ArgumentHelp(.authservID))
    var authservID: String?

    @Option(name: .long(.timeout), help: ArgumentHelp(.timeout))
    var timeout: Int?

    func run() throws {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) } }
        let load: ConfigurationLoad
        if let file {
            load =
                access(file, F_OK) == 0
                ? ConfigurationFile.read(path: file, home: environment("HOME"))
                : .invalid(ConfigurationProblem(.notFound, file: file, "no such file"))
        } else {
            load = ConfigurationLoad.process
        }
        if case .invalid(let problem) = load { throw CommandFailure.configuration(problem.description) }
        if check {
            if let path = load.file?.path {
                Output.line("\(path): valid")
            } else {
                Output.line("no configuration file (looked for \(Self.lookedFor(environment))); defaults apply")
            }
            return
        }
        var given = givenOptions(keys, policy, storeOptions, calendarOptions, retry, past, pending)
        if let authservID { given[.authservID] = .text(authservID) }
        if let timeout { given[.timeout] = .number(timeout) }
        let settings = EffectiveSettings(file: load.file, commandLine: given)
        Output.line("# configuration file: \(load.file?.path ?? "none (looked for \(Self.lookedFor(environment)))")")
        var rows = CommonOption.allCases.filter { $0.fileType != nil }.map { option in
            (
                option.rawValue, Self.show(settings.values[option]?.withoutCredentials, default: Self.standard(option)),
                settings.source(option).description
            )
        }
        rows.append(
            (
                "reminders", Self.show(load.file?.reminders),
                load.file.flatMap { file in file.remindersLine.map { "\(file.path):\($0)" } } ?? SettingSource.standard.description
            ))
        rows.append(
            (
                "calendar-color", load.file?.calendarColor.map(Self.quoted) ?? "(none)",
                load.file.flatMap { file in file.calendarColorLine.map { "\(file.path):\($0)" } } ?? SettingSource.standard.description
            ))
        let nameWidth = rows.map(\.0.count).max() ?? 0
        let valueWidth = min(rows.map(\.1.count).max() ?? 0, 60)
        for (name, value, source) in rows {
            Output.line(Self.padded(name, nameWidth) + " = " + Self.padded(value, valueWidth) + "  # " + source)
        }
    }

    static func lookedFor(_ environment: (String) -> String?) -> String {
        if let named = environment("RESERVOIR_CONFIG"), !named.isEmpty { return named }
        return ConfigurationFile.candidates(environment: environment).joined(separator: ", ")
    }

    /// A value as TOML writes it (strings quoted), or what applies without one.
    static func show(_ value: SettingValue?, default standard: String) -> String {
        switch value {
        case nil: standard
        case .text(let text): quoted(text)
        case .texts(let texts): "[" + texts.map(quoted).joined(separator: ", ") + "]"
        case .number(let n): String(n)
        case .flag(let set): set ? "true" : "false"
        }
    }

    /// `reminders` as an inline TOML table of the leads in force (`{ food = "PT2H", … }`),
    /// `false` for none; the defaults in parentheses when the file does not say.
    static func show(_ reminders: ReminderSettings?) -> String {
        let settings = reminders ?? .standard
        if settings.leads.isEmpty { return "false" }
        let leads = EventCategory.allCases.compactMap { category in
            settings.leads[category].map { "\(category.rawValue) = \"\(ReminderSettings.duration($0))\"" }
        }
        let table = "{ " + leads.joined(separator: ", ") + " }"
        return reminders == nil ? "(" + table + ")" : table
    }

    /// What applies when nothing sets `option`: the path or name it comes to here (quoted, as a
    /// value), or what happens without one (in parentheses).
    static func standard(_ option: CommonOption) -> String {
        if let said = option.declaration.standard { return said }
        switch option {
        case .store:
            guard let path = try? EventStoreLocation.defaultPath() else { return "(none: no home directory, give --store)" }
            return quoted("sqlite:" + path)
        case .authservID: return quoted(AuthenticationResults.defaultAuthservID())
        case .netrc:
            guard let home = HomePath.processHome else { return "(none: no home directory)" }
            return quoted(HomePath.expand("~/.netrc", home: home)) + (access(HomePath.expand("~/.netrc", home: home), F_OK) == 0 ? "" : " (absent)")
        case .retrySpool:
            guard let spool = RetrySpool.locate(nil) else { return "(none: no home directory, give --retry-spool)" }
            return quoted(spool.directory)
        default: return "(none)"
        }
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
