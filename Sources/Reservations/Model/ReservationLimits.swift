/// Bounds on what one message may make the reader do; past them the rest is ignored with a
/// `limit-exceeded` diagnostic, so hostile markup costs bounded time.
public enum ReservationLimits {
    /// Reservations kept per message (a long itinerary has a few dozen legs at most).
    public static let reservationsPerMessage = 100
    /// Items visited per message while looking for reservations (wrappers, packages, orders).
    public static let itemsVisitedPerMessage = 1_000
    /// Nesting followed through wrappers (`EmailMessage.about`, `Order.orderedItem`,
    /// `ReservationPackage.subReservation`, `@graph`).
    public static let wrapperDepth = 8
    /// Nesting copied into the normalized JSON; deeper values become `null`.
    public static let jsonDepth = 32
    /// Longest string value used for titles, locations and details; longer ones are cut.
    public static let textLength = 1_000
    /// Longest ticket token (`ticketToken`) kept as a detail; a longer one is an encoded
    /// image or blob, not something a person reads.
    public static let ticketTokenLength = 64
}
