/// The OPTIONAL and DEFAULT components of the FCB's SEQUENCEs (ERA's `uicRailTicketData`
/// ASN.1, versions 1.3, 2 and 3), one enum per SEQUENCE: its cases in the schema's order, the
/// order of the presence bits (X.691 19.2), each raw value the schema's component name. A
/// component is looked up by its case, so a misspelt one, or one of another SEQUENCE, does not
/// compile. Components a version lacks are left out by ``SequenceFields/fields(in:)``.
protocol SequenceFields: Hashable, CaseIterable, RawRepresentable where RawValue == String {
    /// The components of this SEQUENCE in `version`'s schema, in order.
    static func fields(in version: FCBVersion) -> [Self]
}

extension SequenceFields {
    /// Every case: the SEQUENCE is the same in every version.
    static func fields(in version: FCBVersion) -> [Self] { Array(allCases) }
}

/// A train by number or by text (`trainNum`, `trainIA5`).
protocol TrainFields: SequenceFields {
    static var trainNum: Self { get }
    static var trainIA5: Self { get }
}

/// The departure and arrival stations by code, by text code and by name.
protocol StationFields: SequenceFields {
    static var fromStationNum: Self { get }
    static var fromStationIA5: Self { get }
    static var toStationNum: Self { get }
    static var toStationIA5: Self { get }
    static var fromStationNameUTF8: Self { get }
    static var toStationNameUTF8: Self { get }
}

/// A document's reference and its product's owner and id.
protocol ProductFields: SequenceFields {
    static var referenceNum: Self { get }
    static var referenceIA5: Self { get }
    static var productOwnerNum: Self { get }
    static var productOwnerIA5: Self { get }
    static var productIdNum: Self { get }
    static var productIdIA5: Self { get }
}

/// The validity's first and last day, time and UTC offset.
protocol ValidityFields: SequenceFields {
    static var validFromDay: Self { get }
    static var validFromTime: Self { get }
    static var validFromUTCOffset: Self { get }
    static var validUntilDay: Self { get }
    static var validUntilTime: Self { get }
    static var validUntilUTCOffset: Self { get }
}

/// How the reader passes a component after the ones it shows (``FCBDecoder``'s `finishing`).
enum TrailingComponent {
    /// A SEQUENCE OF INTEGER (1..32000): service brands.
    case serviceBrands
    /// A SEQUENCE OF INTEGER (0..31): transport types.
    case transportTypes
    case price
    case infoText
    case extensionData
    /// A structured component (tariffs, regions, VAT, luggage, add-ons): it ends the reading.
    case structured
}

/// The components after the ones shown of an open ticket or a pass.
protocol TrailingFields: SequenceFields {
    var trailing: TrailingComponent { get }
}

/// `UicRailTicketData`.
enum RailTicketDataField: String, SequenceFields {
    case travelerDetail, transportDocument, controlDetail
    case `extension`
}

/// `IssuingData`; `issuingTime` is mandatory in version 3.
enum IssuingField: String, SequenceFields {
    case securityProviderNum, securityProviderIA5, issuerNum, issuerIA5, issuingTime, issuerName, currency, currencyFract, issuerPNR
    case `extension`
    case issuedOnTrainNum, issuedOnTrainIA5, issuedOnLine, pointOfSale

    static func fields(in version: FCBVersion) -> [Self] { allCases.filter { version != .v3 || $0 != .issuingTime } }
}

/// `TravelerData`.
enum TravelerDataField: String, SequenceFields {
    case traveler, preferredLanguage, groupName
}

/// `TravelerType`: version 1.3 gives the birthday as `dayOfBirth` (day of the year), later
/// ones as `monthOfBirth` and `dayOfBirthInMonth`.
enum TravelerField: String, SequenceFields {
    case firstName, secondName, lastName, idCard, passportId, title, gender, customerIdIA5, customerIdNum, yearOfBirth
    case dayOfBirth, monthOfBirth, dayOfBirthInMonth
    case passengerType, passengerWithReducedMobility, countryOfResidence, countryOfPassport, countryOfIdCard, status

    static func fields(in version: FCBVersion) -> [Self] {
        let left: Set<Self> = version == .v13 ? [.monthOfBirth, .dayOfBirthInMonth] : [.dayOfBirth]
        return allCases.filter { !left.contains($0) }
    }
}

/// `CustomerStatusType`.
enum CustomerStatusField: String, SequenceFields {
    case statusProviderNum, statusProviderIA5, customerStatus, customerStatusDescr
}

/// `DocumentData`.
enum DocumentDataField: String, SequenceFields {
    case token
}

/// `TokenType`.
enum TokenField: String, SequenceFields {
    case tokenProviderNum, tokenProviderIA5, tokenSpecification
}

/// The alternatives of `DocumentData.ticket`, in the schema's order (the same in 1.3, 2 and 3).
enum DocumentKind: String, CaseIterable {
    case reservation, carCarriageReservation, openTicket, pass, voucher, customerCard, counterMark, parkingGround, fipTicket
    case stationPassage
    case `extension`
    case delayConfirmation
}

/// `ReservationData`.
enum ReservationField: String, TrainFields, StationFields, ProductFields {
    case trainNum, trainIA5, departureDate, referenceIA5, referenceNum, productOwnerNum, productOwnerIA5, productIdNum, productIdIA5
    case serviceBrand, serviceBrandAbrUTF8, serviceBrandNameUTF8, service, stationCodeTable, fromStationNum, fromStationIA5
    case toStationNum, toStationIA5, fromStationNameUTF8, toStationNameUTF8, departureUTCOffset, arrivalDate, arrivalTime
    case arrivalUTCOffset, carrierNum, carrierIA5, classCode, serviceLevel, places, additionalPlaces, bicyclePlaces
    case compartmentDetails, numberOfOverbooked, berth, tariff, priceType, price, vatDetail, typeOfSupplement, numberOfSupplements
    case luggage, infoText
    case `extension`
}

/// `PlacesType`.
enum PlacesField: String, SequenceFields {
    case coach, placeString, placeDescription, placeIA5, placeNum
}

/// `OpenTicketData`; the transport types are not in version 1.3.
enum OpenTicketField: String, StationFields, ProductFields, ValidityFields, TrailingFields {
    case referenceNum, referenceIA5, productOwnerNum, productOwnerIA5, productIdNum, productIdIA5, extIssuerId, issuerAuthorizationId
    case stationCodeTable, fromStationNum, fromStationIA5, toStationNum, toStationIA5, fromStationNameUTF8, toStationNameUTF8
    case validRegionDesc, validRegion, returnDescription, validFromDay, validFromTime, validFromUTCOffset, validUntilDay
    case validUntilTime, validUntilUTCOffset, activatedDay, classCode, serviceLevel, carrierNum, carrierIA5, includedServiceBrands
    case excludedServiceBrands, tariffs, price, vatDetail, infoText, includedAddOns, luggage, includedTransportType
    case excludedTransportType
    case `extension`

    static func fields(in version: FCBVersion) -> [Self] {
        allCases.filter { version != .v13 || ($0 != .includedTransportType && $0 != .excludedTransportType) }
    }

    var trailing: TrailingComponent {
        switch self {
        case .includedServiceBrands, .excludedServiceBrands: .serviceBrands
        case .includedTransportType, .excludedTransportType: .transportTypes
        case .price: .price
        case .infoText: .infoText
        case .extension: .extensionData
        default: .structured
        }
    }
}

/// `TrainLinkType`, one alternative of `RegionalValidityType`.
enum TrainLinkField: String, TrainFields, StationFields {
    case trainNum, trainIA5, departureUTCOffset, fromStationNum, fromStationIA5, toStationNum, toStationIA5, fromStationNameUTF8
    case toStationNameUTF8
}

/// `ZoneType`, one alternative of `RegionalValidityType`.
enum ZoneField: String, SequenceFields {
    case carrierNum, carrierIA5, stationCodeTable, entryStationNum, entryStationIA5, terminatingStationNum, terminatingStationIA5
    case city, zoneId, binaryZoneId, nutsCode
}

/// `ViaStationType`; the service brands are in version 3 only.
enum ViaStationField: String, SequenceFields {
    case stationCodeTable, stationNum, stationIA5, alternativeRoutes, route, carrierNum, carrierIA5, seriesId, routeId
    case includedServiceBrands, excludedServiceBrands

    static func fields(in version: FCBVersion) -> [Self] {
        allCases.filter { version == .v3 || ($0 != .includedServiceBrands && $0 != .excludedServiceBrands) }
    }
}

/// `PassData`; `trainValidity` is in version 3 only.
enum PassField: String, ProductFields, ValidityFields, TrailingFields {
    case referenceNum, referenceIA5, productOwnerNum, productOwnerIA5, productIdNum, productIdIA5, passType, passDescription
    case classCode, validFromDay, validFromTime, validFromUTCOffset, validUntilDay, validUntilTime, validUntilUTCOffset
    case validityPeriodDetails, numberOfValidityDays, trainValidity, numberOfPossibleTrips, numberOfDaysOfTravel, activatedDay
    case countries, includedCarrierNum, includedCarrierIA5, excludedCarrierNum, excludedCarrierIA5, includedServiceBrands
    case excludedServiceBrands, validRegion, tariffs, price, vatDetail, infoText
    case `extension`

    static func fields(in version: FCBVersion) -> [Self] { allCases.filter { version == .v3 || $0 != .trainValidity } }

    var trailing: TrailingComponent {
        switch self {
        case .includedServiceBrands, .excludedServiceBrands: .serviceBrands
        case .price: .price
        case .infoText: .infoText
        case .extension: .extensionData
        default: .structured
        }
    }
}

/// `GeoCoordinateType` (no extension marker).
enum GeoCoordinateField: String, SequenceFields {
    case geoUnit, coordinateSystem, hemisphereLongitude, hemisphereLatitude, accuracy
}
