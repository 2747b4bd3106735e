/// What kind of booking a reservation is; one per schema.org `Reservation` subtype Apple
/// Mail and Gmail understand.
public enum ReservationCategory: String, Sendable, Equatable, CaseIterable {
    case food
    case lodging
    case rentalCar = "rental-car"
    case flight
    case train
    case bus
    case boat
    case event
    case taxi

    /// A word for people ("Restaurant", "Hotel", "Car rental", …).
    public var displayName: String {
        switch self {
        case .food: "Restaurant"
        case .lodging: "Hotel"
        case .rentalCar: "Car rental"
        case .flight: "Flight"
        case .train: "Train"
        case .bus: "Bus"
        case .boat: "Boat"
        case .event: "Event"
        case .taxi: "Taxi"
        }
    }

    /// The schema.org reservation type of this category.
    public var schemaType: String {
        switch self {
        case .food: "FoodEstablishmentReservation"
        case .lodging: "LodgingReservation"
        case .rentalCar: "RentalCarReservation"
        case .flight: "FlightReservation"
        case .train: "TrainReservation"
        case .bus: "BusReservation"
        case .boat: "BoatReservation"
        case .event: "EventReservation"
        case .taxi: "TaxiReservation"
        }
    }
}

/// schema.org `ReservationStatusType`, reduced to what a calendar distinguishes.
public enum ReservationStatus: String, Sendable, Equatable, CaseIterable {
    case confirmed
    case pending
    case hold
    case cancelled
}
