import Markup

/// The part of the schema.org vocabulary the reader needs: type-name spellings and the
/// subtypes it treats like their parent.
enum SchemaVocabulary {
    /// The local name of a schema.org type or enumeration member as senders spell it (the
    /// spellings `SchemaOrg.localName(_:)` reads); a name of another vocabulary, or text that
    /// is not a name, unchanged.
    static func name(_ raw: String) -> String {
        SchemaOrg.localName(raw) ?? raw
    }

    /// The reservation type of each category, with the older names Google documented.
    static let reservationTypes: [String: ReservationCategory] = [
        "FoodEstablishmentReservation": .food,
        "LodgingReservation": .lodging,
        "RentalCarReservation": .rentalCar,
        "FlightReservation": .flight,
        "TrainReservation": .train,
        "BusReservation": .bus,
        "BoatReservation": .boat,
        "EventReservation": .event,
        "TaxiReservation": .taxi,
    ]

    /// What `reservationFor` points to, by category: a generic `Reservation` takes its
    /// category from it. Subtypes per schema.org's type hierarchy.
    static let reservedThings: [String: ReservationCategory] = {
        var map: [String: ReservationCategory] = [:]
        for t in foodEstablishments { map[t] = .food }
        for t in lodgingBusinesses { map[t] = .lodging }
        for t in events { map[t] = .event }
        for t in ["Flight"] { map[t] = .flight }
        for t in ["TrainTrip"] { map[t] = .train }
        for t in ["BusTrip"] { map[t] = .bus }
        for t in ["BoatTrip"] { map[t] = .boat }
        for t in ["Car", "Vehicle", "BusOrCoach", "Motorcycle", "MotorizedBicycle"] { map[t] = .rentalCar }
        for t in ["TaxiService", "Taxi"] { map[t] = .taxi }
        return map
    }()

    /// schema.org FoodEstablishment and its subtypes (a Restaurant is a FoodEstablishment).
    static let foodEstablishments: Set<String> = [
        "FoodEstablishment", "Restaurant", "Bakery", "BarOrPub", "Brewery", "CafeOrCoffeeShop",
        "Distillery", "FastFoodRestaurant", "IceCreamShop", "Winery",
    ]

    /// schema.org LodgingBusiness and its subtypes (a Hotel is a LodgingBusiness).
    static let lodgingBusinesses: Set<String> = [
        "LodgingBusiness", "Hotel", "Motel", "Hostel", "BedAndBreakfast", "Campground", "Resort",
        "VacationRental", "SkiResort", "Accommodation", "HotelRoom", "Apartment", "House", "Suite",
    ]

    /// schema.org Event and its subtypes (MusicEvent, ScreeningEvent, SportsEvent, …).
    static let events: Set<String> = [
        "Event", "BusinessEvent", "ChildrensEvent", "ComedyEvent", "CourseInstance", "DanceEvent",
        "DeliveryEvent", "EducationEvent", "EventSeries", "ExhibitionEvent", "Festival", "FoodEvent",
        "Hackathon", "LiteraryEvent", "MusicEvent", "PublicationEvent", "SaleEvent", "ScreeningEvent",
        "SocialEvent", "SportsEvent", "TheaterEvent", "VisualArtsEvent", "OnDemandEvent",
        "BroadcastEvent",
    ]

    /// `reservationStatus` values (schema.org ReservationStatusType, plus the short names in
    /// Google's early examples, `http://schema.org/Confirmed`).
    static func status(_ raw: String) -> ReservationStatus? {
        switch name(raw).lowercased() {
        case "reservationconfirmed", "confirmed": .confirmed
        case "reservationcancelled", "cancelled", "reservationcanceled", "canceled": .cancelled
        case "reservationpending", "pending": .pending
        case "reservationhold", "hold": .hold
        default: nil
        }
    }

    /// The canonical schema.org URL of a status, as the normalized JSON writes it.
    static func statusURL(_ status: ReservationStatus) -> String {
        switch status {
        case .confirmed: "https://schema.org/ReservationConfirmed"
        case .pending: "https://schema.org/ReservationPending"
        case .hold: "https://schema.org/ReservationHold"
        case .cancelled: "https://schema.org/ReservationCancelled"
        }
    }
}
