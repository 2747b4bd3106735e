/// What a conditional GET or HEAD decides (RFC 7232 §6).
public enum ConditionalOutcome: Sendable, Equatable {
    /// Send the representation (200).
    case send
    /// The client's copy is current: 304 Not Modified, no body (RFC 7232 §4.1).
    case notModified
}

/// The preconditions of a request that a read-only resource answers: If-None-Match and
/// If-Modified-Since (If-Match and If-Unmodified-Since guard writes, which the feed has none of).
public struct ConditionalRequest: Sendable, Equatable {
    public var ifNoneMatch: EntityTagCondition?
    /// The If-Modified-Since date as Unix time; nil when absent or not an HTTP-date.
    public var ifModifiedSince: Int64?

    public init(ifNoneMatch: EntityTagCondition? = nil, ifModifiedSince: Int64? = nil) {
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
    }

    /// Reads the two fields as received; a date that is not an HTTP-date is ignored
    /// (RFC 7232 §3.3).
    public init(ifNoneMatch: String?, ifModifiedSince: String?) {
        self.init(
            ifNoneMatch: ifNoneMatch.map(EntityTagCondition.init(fieldValue:)),
            ifModifiedSince: ifModifiedSince.flatMap(HTTPDate.parse))
    }

    /// The decision for a GET or HEAD of a representation with `tag`, last changed at
    /// `lastModified` (Unix time, nil when unknown), following RFC 7232 §6's order:
    /// - step 3: If-None-Match, when present, decides alone: with `*` any current
    ///   representation matches, otherwise a weak comparison with each listed tag (§3.2);
    ///   a match is 304 for GET and HEAD;
    /// - step 4: only without If-None-Match, If-Modified-Since: 304 when the representation
    ///   has not changed since that date (§3.3).
    public func evaluate(tag: EntityTag, lastModified: Int64?) -> ConditionalOutcome {
        if let ifNoneMatch {
            switch ifNoneMatch {
            case .any:
                return .notModified
            case .tags(let tags):
                return tags.contains { $0.weaklyMatches(tag) } ? .notModified : .send
            }
        }
        if let since = ifModifiedSince, let lastModified, lastModified <= since {
            return .notModified
        }
        return .send
    }
}
