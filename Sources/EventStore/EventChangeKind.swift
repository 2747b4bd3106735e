/// What applying one version of an event did: one word per outcome, the same in
/// ``EventChange``, in every backend's history table, in JSON and in logs.
public enum EventChangeKind: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case created
    case updated
    case cancelled
    /// Same content as stored, or the same message again; never recorded in the history.
    case unchanged
    /// The message is older than the one the event was last changed by.
    case olderThanStored = "older-than-stored"
    /// A domain other than the one that created the event tried to change it: recorded by
    /// stores written before bookings were keyed per owner, and read from their history.
    case refusedOtherDomain = "refused-other-domain"
    /// The user removed the event (`reservoir forget`); its history stays.
    case forgotten

    /// The stored word.
    public var description: String { rawValue }

    /// Reads a word from a history table. Stores whose history was written under the words
    /// `ignored-older` and `refused` keep them: those rows read as `older-than-stored` and
    /// `refused-other-domain`, the words every backend writes now.
    public init?(storedWord word: String) {
        switch word {
        case "ignored-older": self = .olderThanStored
        case "refused": self = .refusedOtherDomain
        default: self.init(rawValue: word)
        }
    }
}
