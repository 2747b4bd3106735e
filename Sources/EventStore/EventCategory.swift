/// What kind of booking an event is. The raw value is the word the store keeps in the
/// `category` column and the one output shows (`food`, `rental-car`, …).
public enum EventCategory: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case food
    case lodging
    case rentalCar = "rental-car"
    case flight
    case train
    case bus
    case boat
    case event
    case taxi

    /// The stored word.
    public var description: String { rawValue }
}
