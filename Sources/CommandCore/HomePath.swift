import Delivery
import Glibc

/// `~` and `$HOME` at the start of a path setting, expanded from the `HOME` environment
/// variable, on the command line and in the configuration file alike (docs/CONFIGURATION.md):
/// a shell leaves `~` alone after `vdir:` or `sqlite:`, inside quotes, and in a TOML string,
/// and a hook started by a mail system has no shell at all.
///
/// Expanded: `~` and `$HOME` (or `${HOME}`) alone or followed by `/`, at the start of the path,
/// which for `store` is after `sqlite:` or `sqlite://` and for `calendar` after `vdir:`. Not
/// expanded: `~user`, a `~` or `$HOME` elsewhere, other variables. Without an absolute `HOME`
/// the value stays as written (a calendar path left relative is then refused, ``CalendarDestination``).
package enum HomePath {
    /// The process's `HOME`, when it is an absolute path.
    package static var processHome: String? {
        guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") else { return nil }
        return home
    }

    /// `path` with a leading `~` or `$HOME` replaced by `home`.
    package static func expand(_ path: String, home: String?) -> String {
        guard let home else { return path }
        for prefix in ["~", "$HOME", "${HOME}"] where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            guard rest.isEmpty || rest.hasPrefix("/") else { continue }
            // "/" + "/x" would be "//x"; a home of "/" stays "/x".
            let base = home.hasSuffix("/") ? String(home.dropLast()) : home
            return base + rest
        }
        return path
    }

    /// The scheme before the path of a setting's value (`sqlite:`, `sqlite://`, `vdir:`), or
    /// nil when the value is no path at all (a CalDAV or PostgreSQL URL).
    static func pathPrefix(_ option: CommonOption, _ value: String) -> String? {
        switch option {
        case .store:
            if value.hasPrefix("sqlite://") { return "sqlite://" }
            if value.hasPrefix("sqlite:") { return "sqlite:" }
            return value.contains("://") ? nil : ""
        case .calendar:
            return value.hasPrefix("vdir:") ? "vdir:" : nil
        default:
            return option.takesPath ? "" : nil
        }
    }

    /// The value of `option` with its path expanded; other options' values as they are.
    package static func expand(_ option: CommonOption, _ value: String, home: String?) -> String {
        guard let prefix = pathPrefix(option, value) else { return value }
        return prefix + expand(String(value.dropFirst(prefix.count)), home: home)
    }

    /// Every path of a setting's value expanded (``expand(_:_:home:)``).
    package static func expand(_ option: CommonOption, _ value: SettingValue, home: String?) -> SettingValue {
        switch value {
        case .text(let text): .text(expand(option, text, home: home))
        case .texts(let texts): .texts(texts.map { expand(option, $0, home: home) })
        case .number, .flag: value
        }
    }
}
