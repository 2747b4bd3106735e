import CalDAV
import ReservoirBase

/// A calendar that stored events are delivered to, as `--calendar` names it.
///
/// - `https://host/path/to/collection/` (or `http://`): a CalDAV calendar collection (RFC 4791),
///   each event one calendar object resource named after its UID;
/// - `vdir:PATH`: a vdir (the directory format vdirsyncer and khal read), one `UID.ics` per event.
public enum CalendarDestination: Sendable, Equatable, Hashable, CustomStringConvertible {
    case caldav(url: String)
    case vdir(path: String)

    /// Reads a `--calendar` value (`~` and `$HOME` already expanded by the caller). A vdir path
    /// must be absolute: a hook runs in whatever directory its mail system starts it in
    /// (Dovecot's `base_dir`, procmail's `MAILDIR`), so a relative path would put the calendar
    /// there, and a `~` left unexpanded would name a folder called `~`.
    public init(parsing text: String) throws(DeliveryError) {
        if text.hasPrefix("vdir:") {
            var path = String(text.dropFirst("vdir:".count))
            guard !path.isEmpty else { throw DeliveryError("--calendar vdir:PATH needs a directory (got vdir:)") }
            guard path.hasPrefix("/") else {
                let unexpanded = path.hasPrefix("~") || path.hasPrefix("$") ? " (HOME is not an absolute path, so ~ cannot be expanded)" : ""
                throw DeliveryError(
                    "--calendar vdir:PATH takes an absolute directory (vdir:/…, vdir:~/… or vdir:$HOME/…), not \(text)\(unexpanded)")
            }
            while path.count > 1, path.hasSuffix("/") { path.removeLast() }
            self = .vdir(path: path)
            return
        }
        guard text.contains("://") else {
            throw DeliveryError(
                "--calendar takes a CalDAV collection URL (https://host/path/) or vdir:PATH (got \(URLText.withoutCredentials(text)))")
        }
        // The collection URL's rules are the CalDAV client's: http or https, a host, no
        // query or fragment, and no user:password@ (credentials come from the netrc file, never
        // from the command line, where every user of the machine can read them).
        do {
            self = .caldav(url: try CalDAVCollection(url: text).url)
        } catch {
            // Never the password: the refusal of `user:password@` is read in logs and terminals.
            throw DeliveryError("--calendar \(URLText.withoutCredentials(text)): \(error.detail)")
        }
    }

    /// The stable name the store keeps deliveries under: `caldav:URL` or `vdir:/absolute/path`.
    public var name: String {
        switch self {
        case .caldav(let url): "caldav:" + url
        case .vdir(let path): "vdir:" + path
        }
    }

    public var description: String {
        switch self {
        case .caldav(let url): url
        case .vdir(let path): "vdir:" + path
        }
    }
}

/// A setting that cannot work (a malformed `--calendar`, an unreadable CA file): said before
/// anything is pushed.
public struct DeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
