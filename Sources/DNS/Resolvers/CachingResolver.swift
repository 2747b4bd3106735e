/// Remembers every answer of the resolver it wraps for the rest of the run, so a mailbox
/// signed by one selector costs one query. Temporary failures are remembered too: a run
/// does not hammer a server that just failed.
///
/// Not thread-safe: one run uses it from one thread, like the resolver it wraps.
public final class CachingResolver: TXTResolver {
    /// How many names are remembered; beyond that the cache stops growing (answers are still
    /// returned, just not stored), so a hostile mailbox cannot exhaust memory.
    public static let maxCachedNames = 4096

    private let wrapped: any TXTResolver
    private var answers: [String: TXTLookupResult] = [:]

    public init(wrapping: any TXTResolver) {
        self.wrapped = wrapping
    }

    public func lookupTXT(_ name: String) -> TXTLookupResult {
        let key = DomainName.normalized(name)
        if let known = answers[key] { return known }
        let answer = wrapped.lookupTXT(name)
        if answers.count < Self.maxCachedNames { answers[key] = answer }
        return answer
    }
}
