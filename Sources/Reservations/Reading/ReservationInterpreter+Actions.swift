import JSON

/// One of Gmail's actions in `potentialAction`, with the web address it opens.
struct ReservationAction {
    /// The action's type, local name (`CheckInAction`).
    var type: String
    var url: String
}

extension ReservationInterpreter {
    /// The detail label of each action type read; other types are ignored. A check-in link is
    /// the `Check-in URL` detail the iCalendar writer turns into an alarm.
    static let actionLabels: [String: String] = [
        "CheckInAction": "Check-in URL",
        "EditAction": "Manage booking",
        "UpdateAction": "Manage booking",
        "ConfirmAction": "Confirm booking",
        "CancelAction": "Cancel booking",
        "ViewAction": "View",
    ]

    /// `potentialAction` (one object or several) as Gmail and schema.org write it: the URL in
    /// `target` (text, or an `EntryPoint` with `urlTemplate` / `url`, or several of these for
    /// several platforms), else in the action's own `url` / `urlTemplate`. The first http(s)
    /// URL is kept; an action offering only other schemes (`javascript:`, `data:`,
    /// `android-app:`) is dropped with `unsafe-url`, since these links go into calendar notes.
    mutating func readActions() -> [ReservationAction] {
        var actions: [ReservationAction] = []
        var refused: Set<Int> = []
        for (index, value) in node.values("potentialAction").enumerated() {
            guard let action = SchemaNode(value), let type = action.types.first(where: { Self.actionLabels[$0] != nil }) else { continue }
            var candidates: [String] = []
            for target in action.values("target") {
                if let url = SchemaNode(target)?.text("urlTemplate", "url") ?? SchemaNode.text(of: target) { candidates.append(url) }
            }
            if let url = action.text("url", "urlTemplate") { candidates.append(url) }
            if let web = candidates.first(where: Self.isWebURL) {
                actions.append(ReservationAction(type: type, url: web))
            } else if let first = candidates.first {
                refuseLink(first, property: "potentialAction \(type)")
                refused.insert(index)
            }
        }
        if !refused.isEmpty {
            rewriteRepaired("potentialAction") { refused.contains($0) ? nil : $1 }
        }
        return actions
    }

    /// The URL of the first action of `type`.
    static func url(of type: String, in actions: [ReservationAction]) -> String? {
        actions.first { $0.type == type }?.url
    }

    /// `property`'s text when it is an http(s) URL; any other scheme is dropped with
    /// `unsafe-url` (a `javascript:` or `data:` link must not reach a calendar).
    mutating func webLink(_ property: String) -> String? {
        guard let text = node.text(property) else { return nil }
        if Self.isWebURL(text) { return text }
        refuseLink(text, property: property)
        repaired[property] = nil
        return nil
    }

    /// Rewrites `repaired[key]` (one value or an array) element by element: `change` gets each
    /// element with its index and returns it, changed, or nil to drop it. A refused link is
    /// taken out of the normalized JSON too, which calendars keep as `STRUCTURED-DATA`.
    mutating func rewriteRepaired(_ key: String, _ change: (Int, JSONValue) -> JSONValue?) {
        guard let value = repaired[key] else { return }
        if case .array(let list) = value {
            let kept = list.enumerated().compactMap { change($0.offset, $0.element) }
            repaired[key] = kept.isEmpty ? nil : .array(kept)
        } else {
            repaired[key] = change(0, value)
        }
    }

    mutating func refuseLink(_ text: String, property: String) {
        let scheme = Self.scheme(of: text)
        note(
            .unsafeURL, detail: scheme,
            "\(property) is not an http(s) URL\(scheme.map { " (\($0):)" } ?? ""); not put in the calendar")
    }

    /// True for an absolute `http:` or `https:` URL (scheme in any case) without spaces.
    static func isWebURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return false }
        return !text.contains(" ") && text.count > (lower.hasPrefix("https") ? 8 : 7)
    }

    /// The URL scheme (RFC 3986 §3.1: a letter, then letters, digits, `+`, `-`, `.`), lowercased;
    /// nil when the text does not start with one.
    static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter, scheme.count <= 32,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }
}
