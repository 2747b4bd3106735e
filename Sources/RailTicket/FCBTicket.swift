/// The version of the ERA FCB schema (`uicRailTicketData`) a `U_FLEX` record carries, from the
/// record's version field (UIC 918.3 annex, U_FLEX): `13` for 1.3, `02`, `03`.
public enum FCBVersion: String, Sendable, Equatable, CaseIterable {
    case v13 = "13"
    case v2 = "02"
    case v3 = "03"
}

/// A station of an FCB document: its code in the ticket's code table, or its name as printed.
public struct FCBStation: Sendable, Equatable {
    public var code: Int?
    public var codeText: String?
    public var name: String?
}

/// A travel class of the FCB's `TravelClassType`.
public enum FCBTravelClass: Int, Sendable, Equatable {
    case notApplicable = 0
    case first
    case second
    case tourist
    case comfort
    case premium
    case business
    case all
    case premiumFirst
    case standardFirst
    case premiumSecond
    case standardSecond
}

/// A seat or couchette reservation (`ReservationData`): days count from the issuing day, times
/// are minutes of the local day.
public struct FCBReservation: Sendable, Equatable {
    public var trainNumber: String?
    /// The RICS code of the product's owner (`productOwnerNum`); nil: the issuer's.
    public var productOwner: Int?
    public var departureDay = 0
    public var reference: String?
    public var serviceBrand: String?
    public var from: FCBStation?
    public var to: FCBStation?
    public var departureTime = 0
    public var arrivalDay = 0
    public var arrivalTime: Int?
    public var carriers: [String] = []
    public var travelClass: FCBTravelClass? = .second
    public var coach: String?
    public var places: [String] = []
}

/// A train an open ticket is bound to (`TrainLinkType` of its regional validity): the day counts
/// from the issuing day, the time is the minute of the local day at the departure station.
public struct FCBTrainLink: Sendable, Equatable {
    public var trainNumber: String?
    public var travelDay = 0
    public var departureTime = 0
    public var from: FCBStation?
    public var to: FCBStation?
}

/// An open ticket (`OpenTicketData`): from and to, validity in days from the issuing day.
public struct FCBOpenTicket: Sendable, Equatable {
    public var reference: String?
    /// The RICS code of the product's owner (`productOwnerNum`); nil: the issuer's.
    public var productOwner: Int?
    /// The trains of its regional validity, in order.
    public var trainLinks: [FCBTrainLink] = []
    public var from: FCBStation?
    public var to: FCBStation?
    public var returnIncluded = false
    public var validFromDay = 0
    public var validFromTime: Int?
    public var validUntilDay = 0
    public var validUntilTime: Int?
    public var travelClass: FCBTravelClass? = .second
    public var carriers: [String] = []
}

/// A pass (`PassData`): its kind and validity.
public struct FCBPass: Sendable, Equatable {
    public var reference: String?
    /// The RICS code of the product's owner (`productOwnerNum`); nil: the issuer's.
    public var productOwner: Int?
    public var passType: Int?
    public var passDescription: String?
    public var travelClass: FCBTravelClass? = .second
    public var validFromDay = 0
    public var validFromTime: Int?
    public var validUntilDay = 0
    public var validUntilTime: Int?
}

/// One transport document of an FCB.
public enum FCBDocument: Sendable, Equatable {
    case reservation(FCBReservation)
    case openTicket(FCBOpenTicket)
    case pass(FCBPass)
    /// An alternative this reader does not decode (its name); the documents after it are not read.
    case other(String)
}

/// A traveller named on the ticket.
public struct FCBTraveler: Sendable, Equatable {
    public var firstName: String?
    public var lastName: String?
    public var name: String { [firstName, lastName].compactMap { $0 }.joined(separator: " ") }
}

/// What an FCB (`UicRailTicketData`) says, as far as it was read.
public struct FCBTicket: Sendable, Equatable {
    public var version: FCBVersion
    /// The RICS code of the security provider, else the issuer.
    public var issuerCode: Int?
    /// The RICS code of the issuer (`issuerNum`), when given as a number.
    public var issuerNumber: Int?
    public var issuerName: String?
    /// The issuing time in UTC: year, day of the year (1 = 1 January), minute of the day.
    public var issuingYear = 2016
    public var issuingDay = 1
    public var issuingTime: Int?
    public var specimen = false
    public var issuerPNR: String?
    public var travelers: [FCBTraveler] = []
    public var documents: [FCBDocument] = []
    /// Why the reading stopped before the end (a part it does not decode), or nil.
    public var stoppedAt: String?
}

/// The unaligned PER decoder of the FCB for the parts Reservoir uses. UPER is not
/// self-delimiting: a component this decoder does not know stops the reading of everything
/// after it, recorded in ``FCBTicket/stoppedAt``; what was read before stays.
enum FCBDecoder {
    struct Stop: Error { var what: String }

    static func decode(_ bytes: [UInt8], version: FCBVersion) -> Result<FCBTicket, UPERReader.Failure> {
        var r = UPERReader(bytes)
        var t = FCBTicket(version: version)
        let top: Presence<RailTicketDataField>
        do {
            top = try r.preamble(RailTicketDataField.self, in: version, extensible: true)
            try readIssuing(&r, &t)
        } catch {
            // The issuing data are required: without them there is no ticket.
            return .failure(error as? UPERReader.Failure ?? .malformed("\(error)"))
        }
        do {
            if top.has(.travelerDetail) { try readTravelerData(&r, &t) }
            if top.has(.transportDocument) {
                let count = try r.count(limit: RailLimits.maxFCBDocuments)
                for _ in 0..<count {
                    do {
                        t.documents.append(try readDocument(&r, t.version))
                    } catch let partial as Partial {
                        t.documents.append(partial.document)
                        throw Stop(what: partial.what)
                    }
                }
            }
            // controlDetail and extension carry nothing Reservoir shows.
        } catch let stop as Stop {
            t.stoppedAt = stop.what
        } catch {
            t.stoppedAt = "\(error)"
        }
        return .success(t)
    }

    private static func readIssuing(_ r: inout UPERReader, _ t: inout FCBTicket) throws {
        let p = try r.preamble(IssuingField.self, in: t.version, extensible: true)
        let provider = p.has(.securityProviderNum) ? try r.integer(1, 32000) : nil
        if p.has(.securityProviderIA5) { _ = try r.ia5String() }
        let issuer = p.has(.issuerNum) ? try r.integer(1, 32000) : nil
        if p.has(.issuerIA5) { _ = try r.ia5String() }
        t.issuerCode = provider ?? issuer
        t.issuerNumber = issuer
        t.issuingYear = try r.integer(2016, 2269)
        t.issuingDay = try r.integer(1, 366)
        if t.version == .v3 || p.has(.issuingTime) { t.issuingTime = try r.integer(0, t.version == .v13 ? 1440 : 1439) }
        if p.has(.issuerName) { t.issuerName = try r.utf8String() }
        t.specimen = try r.bit()
        _ = try r.bit()  // securePaperTicket
        _ = try r.bit()  // activated
        if p.has(.currency) { _ = try r.ia5String(fixed: 3) }
        if p.has(.currencyFract) { _ = try r.integer(1, 3) }
        if p.has(.issuerPNR) { t.issuerPNR = try r.ia5String() }
        if p.has(.extension) { try skipExtensionData(&r) }
        if p.has(.issuedOnTrainNum) { _ = try r.unconstrainedInteger() }
        if p.has(.issuedOnTrainIA5) { _ = try r.ia5String() }
        if p.has(.issuedOnLine) { _ = try r.unconstrainedInteger() }
        if p.has(.pointOfSale) { try skipGeoCoordinate(&r) }
        try r.skipExtensions(p)
    }

    private static func readTravelerData(_ r: inout UPERReader, _ t: inout FCBTicket) throws {
        let p = try r.preamble(TravelerDataField.self, in: t.version, extensible: true)
        if p.has(.traveler) {
            let count = try r.count(limit: RailLimits.maxFCBTravelers)
            for _ in 0..<count { t.travelers.append(try readTraveler(&r, t.version)) }
        }
        if p.has(.preferredLanguage) { _ = try r.ia5String(fixed: 2) }
        if p.has(.groupName) { _ = try r.utf8String() }
        try r.skipExtensions(p)
    }

    private static func readTraveler(_ r: inout UPERReader, _ version: FCBVersion) throws -> FCBTraveler {
        let p = try r.preamble(TravelerField.self, in: version, extensible: true)
        var traveler = FCBTraveler()
        if p.has(.firstName) { traveler.firstName = try r.utf8String() }
        if p.has(.secondName) { _ = try r.utf8String() }
        if p.has(.lastName) { traveler.lastName = try r.utf8String() }
        if p.has(.idCard) { _ = try r.ia5String() }
        if p.has(.passportId) { _ = try r.ia5String() }
        if p.has(.title) { _ = try r.ia5String(sizes: 1...3) }
        if p.has(.gender) { _ = try r.enumerated(4, extensible: true) }
        if p.has(.customerIdIA5) { _ = try r.ia5String() }
        if p.has(.customerIdNum) { _ = try r.unconstrainedInteger() }
        if p.has(.yearOfBirth) { _ = try r.integer(1901, 2155) }
        if p.has(.dayOfBirth) { _ = try r.integer(0, 370) }
        if p.has(.monthOfBirth) { _ = try r.integer(1, 12) }
        if p.has(.dayOfBirthInMonth) { _ = try r.integer(1, 31) }
        _ = try r.bit()  // ticketHolder
        if p.has(.passengerType) { _ = try r.enumerated(8, extensible: true) }
        if p.has(.passengerWithReducedMobility) { _ = try r.bit() }
        for field in [TravelerField.countryOfResidence, .countryOfPassport, .countryOfIdCard] where p.has(field) { _ = try r.integer(1, 999) }
        if p.has(.status) {
            let count = try r.count(limit: RailLimits.maxFCBListItems)
            for _ in 0..<count {
                let s = try r.preamble(CustomerStatusField.self, in: version, extensible: false)
                if s.has(.statusProviderNum) { _ = try r.integer(1, 32000) }
                if s.has(.statusProviderIA5) { _ = try r.ia5String() }
                if s.has(.customerStatus) { _ = try r.unconstrainedInteger() }
                if s.has(.customerStatusDescr) { _ = try r.ia5String() }
            }
        }
        try r.skipExtensions(p)
        return traveler
    }

    private static func readDocument(_ r: inout UPERReader, _ version: FCBVersion) throws -> FCBDocument {
        let p = try r.preamble(DocumentDataField.self, in: version, extensible: true)
        if p.has(.token) {
            let token = try r.preamble(TokenField.self, in: version, extensible: false)
            if token.has(.tokenProviderNum) { _ = try r.unconstrainedInteger() }
            if token.has(.tokenProviderIA5) { _ = try r.ia5String() }
            if token.has(.tokenSpecification) { _ = try r.ia5String() }
            _ = try r.octetString()
        }
        // CHOICE with an extension marker (X.691 23): the extension bit, then the index.
        if try r.bit() { throw Stop(what: "a transport document of a later schema version (choice extension \(try r.normallySmall()))") }
        let kinds = DocumentKind.allCases
        let kind = kinds[kinds.index(kinds.startIndex, offsetBy: try r.integer(0, kinds.count - 1))]
        let document: FCBDocument
        switch kind {
        case .reservation: document = .reservation(try readReservation(&r, version))
        case .openTicket: document = .openTicket(try readOpenTicket(&r, version))
        case .pass: document = .pass(try readPass(&r, version))
        default: throw Partial(document: .other(kind.rawValue), what: "a \(kind.rawValue) document, not decoded")
        }
        try r.skipExtensions(p)
        return document
    }

    private static func train<Field: TrainFields>(_ r: inout UPERReader, _ p: Presence<Field>) throws -> String? {
        var number: String?
        if p.has(.trainNum) { number = String(try r.unconstrainedInteger()) }
        if p.has(.trainIA5) { number = try r.ia5String() }
        return number
    }

    private static func stations<Field: StationFields>(_ r: inout UPERReader, _ p: Presence<Field>) throws -> (FCBStation?, FCBStation?) {
        var from = FCBStation()
        var to = FCBStation()
        if p.has(.fromStationNum) { from.code = try r.integer(1, 9_999_999) }
        if p.has(.fromStationIA5) { from.codeText = try r.ia5String() }
        if p.has(.toStationNum) { to.code = try r.integer(1, 9_999_999) }
        if p.has(.toStationIA5) { to.codeText = try r.ia5String() }
        if p.has(.fromStationNameUTF8) { from.name = try r.utf8String() }
        if p.has(.toStationNameUTF8) { to.name = try r.utf8String() }
        return (from == FCBStation() ? nil : from, to == FCBStation() ? nil : to)
    }

    /// The carriers by number (`num`) and by text (`ia5`).
    private static func carriers<Field>(_ r: inout UPERReader, _ p: Presence<Field>, num: Field, ia5: Field) throws -> [String] {
        var out: [String] = []
        if p.has(num) {
            let count = try r.count(limit: RailLimits.maxFCBListItems)
            for _ in 0..<count { out.append(String(try r.integer(1, 32000))) }
        }
        if p.has(ia5) {
            let count = try r.count(limit: RailLimits.maxFCBListItems)
            for _ in 0..<count { out.append(try r.ia5String()) }
        }
        return out
    }

    private static func travelClass(_ r: inout UPERReader, _ version: FCBVersion) throws -> FCBTravelClass? {
        FCBTravelClass(rawValue: try r.enumerated(version == .v13 ? 8 : 12, extensible: true))
    }

    private static func reference<Field: ProductFields>(_ r: inout UPERReader, _ p: Presence<Field>, numFirst: Bool) throws -> String? {
        var value: String?
        if numFirst {
            if p.has(.referenceNum) { value = String(try r.unconstrainedInteger()) }
            if p.has(.referenceIA5) { value = try r.ia5String() }
        } else {
            if p.has(.referenceIA5) { value = try r.ia5String() }
            if p.has(.referenceNum) { value = String(try r.unconstrainedInteger()) }
        }
        return value
    }

    /// The product's owner (its RICS code, `productOwnerNum`), when given as a number.
    private static func product<Field: ProductFields>(_ r: inout UPERReader, _ p: Presence<Field>, _ version: FCBVersion) throws -> Int? {
        var owner: Int?
        if p.has(.productOwnerNum) { owner = try r.integer(1, 32000) }
        if p.has(.productOwnerIA5) { _ = try r.ia5String() }
        if p.has(.productIdNum) { _ = try r.integer(0, version == .v13 ? 32000 : 65535) }
        if p.has(.productIdIA5) { _ = try r.ia5String() }
        return owner
    }

    private static func readPlaces(_ r: inout UPERReader, _ version: FCBVersion, into reservation: inout FCBReservation?) throws {
        let p = try r.preamble(PlacesField.self, in: version, extensible: false)
        let coach = p.has(.coach) ? try r.ia5String() : nil
        var places: [String] = []
        if p.has(.placeString) { places.append(try r.ia5String()) }
        if p.has(.placeDescription) { _ = try r.utf8String() }
        var single: [String] = []
        if p.has(.placeIA5) {
            let count = try r.count(limit: RailLimits.maxFCBListItems)
            for _ in 0..<count { single.append(try r.ia5String()) }
        }
        if p.has(.placeNum) {
            let count = try r.count(limit: RailLimits.maxFCBListItems)
            for _ in 0..<count { single.append(String(try r.integer(1, 254))) }
        }
        guard reservation != nil else { return }
        reservation?.coach = coach
        reservation?.places = single.isEmpty ? places : single
    }

    private static func readReservation(_ r: inout UPERReader, _ version: FCBVersion) throws -> FCBReservation {
        let p = try r.preamble(ReservationField.self, in: version, extensible: true)
        var res = FCBReservation()
        res.trainNumber = try train(&r, p)
        if p.has(.departureDate) { res.departureDay = try r.integer(-1, version == .v3 ? 500 : 370) }
        res.reference = try reference(&r, p, numFirst: false)
        res.productOwner = try product(&r, p, version)
        if p.has(.serviceBrand) { _ = try r.integer(0, 32000) }
        if p.has(.serviceBrandAbrUTF8) { res.serviceBrand = try r.utf8String() }
        if p.has(.serviceBrandNameUTF8) { res.serviceBrand = try r.utf8String() }
        if p.has(.service) { _ = try r.enumerated(4, extensible: false) }
        if p.has(.stationCodeTable) { _ = try r.enumerated(5, extensible: false) }
        (res.from, res.to) = try stations(&r, p)
        let minutes = version == .v13 ? 1440 : 1439
        res.departureTime = try r.integer(0, minutes)
        if p.has(.departureUTCOffset) { _ = try r.integer(-60, 60) }
        if p.has(.arrivalDate) { res.arrivalDay = try r.integer(version == .v13 ? 0 : -1, 20) }
        if p.has(.arrivalTime) { res.arrivalTime = try r.integer(0, minutes) }
        if p.has(.arrivalUTCOffset) { _ = try r.integer(-60, 60) }
        res.carriers = try carriers(&r, p, num: .carrierNum, ia5: .carrierIA5)
        if p.has(.classCode) { res.travelClass = try travelClass(&r, version) }
        if p.has(.serviceLevel) { _ = try r.ia5String(sizes: 1...2) }
        var partial: FCBReservation? = res
        if p.has(.places) { try readPlaces(&r, version, into: &partial) }
        var none: FCBReservation?
        if p.has(.additionalPlaces) { try readPlaces(&r, version, into: &none) }
        if p.has(.bicyclePlaces) { try readPlaces(&r, version, into: &none) }
        res = partial ?? res
        // What follows (compartments, berths, tariffs, prices, luggage) is not shown; the
        // simple components are read past, the structured ones end the reading here.
        if p.has(.compartmentDetails) { throw Partial(document: .reservation(res), what: ReservationField.compartmentDetails.rawValue) }
        if p.has(.numberOfOverbooked) { _ = try r.integer(0, 200) }
        for field in [ReservationField.berth, .tariff] where p.has(field) { throw Partial(document: .reservation(res), what: field.rawValue) }
        if p.has(.priceType) { _ = try r.enumerated(4, extensible: false) }
        if p.has(.price) { _ = try r.unconstrainedInteger() }
        if p.has(.vatDetail) { throw Partial(document: .reservation(res), what: ReservationField.vatDetail.rawValue) }
        if p.has(.typeOfSupplement) { _ = try r.integer(0, 9) }
        if p.has(.numberOfSupplements) { _ = try r.integer(0, 200) }
        if p.has(.luggage) { throw Partial(document: .reservation(res), what: ReservationField.luggage.rawValue) }
        if p.has(.infoText) { _ = try r.utf8String() }
        if p.has(.extension) { try skipExtensionData(&r) }
        try r.skipExtensions(p)
        return res
    }

    private static func readOpenTicket(_ r: inout UPERReader, _ version: FCBVersion) throws -> FCBOpenTicket {
        let p = try r.preamble(OpenTicketField.self, in: version, extensible: true)
        var open = FCBOpenTicket()
        open.reference = try reference(&r, p, numFirst: true)
        open.productOwner = try product(&r, p, version)
        if p.has(.extIssuerId) { _ = try r.unconstrainedInteger() }
        if p.has(.issuerAuthorizationId) { _ = try r.unconstrainedInteger() }
        open.returnIncluded = try r.bit()
        if p.has(.stationCodeTable) { _ = try r.enumerated(5, extensible: false) }
        (open.from, open.to) = try stations(&r, p)
        if p.has(.validRegionDesc) { _ = try r.utf8String() }
        if p.has(.validRegion) {
            let count = try r.count(limit: RailLimits.maxFCBListItems)
            for _ in 0..<count {
                do {
                    if let link = try readRegion(&r, version) { open.trainLinks.append(link) }
                } catch let stop as Stop {
                    throw Partial(document: .openTicket(open), what: stop.what)
                }
            }
        }
        // The return route's description precedes the dates; not decoded.
        if p.has(.returnDescription) { throw Partial(document: .openTicket(open), what: OpenTicketField.returnDescription.rawValue) }
        try validity(
            &r, p, version, from: &open.validFromDay, fromTime: &open.validFromTime, until: &open.validUntilDay, untilTime: &open.validUntilTime)
        if p.has(.activatedDay) { try skipIntegers(&r, 0, version == .v3 ? 500 : 370) }
        if p.has(.classCode) { open.travelClass = try travelClass(&r, version) }
        if p.has(.serviceLevel) { _ = try r.ia5String(sizes: 1...2) }
        open.carriers = try carriers(&r, p, num: .carrierNum, ia5: .carrierIA5)
        try finishing(
            &r, p,
            order: [
                .includedServiceBrands, .excludedServiceBrands, .tariffs, .price, .vatDetail, .infoText, .includedAddOns, .luggage,
                .includedTransportType, .excludedTransportType, .extension,
            ], document: .openTicket(open))
        return open
    }

    /// One `RegionalValidityType`: a train link is returned; via stations and zones are read
    /// past; lines, polygons and later alternatives stop the reading.
    private static func readRegion(_ r: inout UPERReader, _ version: FCBVersion) throws -> FCBTrainLink? {
        if try r.bit() { throw Stop(what: "a regional validity of a later schema version") }
        switch try r.integer(0, 4) {
        case 0:
            let p = try r.preamble(TrainLinkField.self, in: version, extensible: false)
            var link = FCBTrainLink()
            link.trainNumber = try train(&r, p)
            link.travelDay = try r.integer(-1, version == .v3 ? 500 : 370)
            link.departureTime = try r.integer(0, version == .v13 ? 1440 : 1439)
            if p.has(.departureUTCOffset) { _ = try r.integer(-60, 60) }
            (link.from, link.to) = try stations(&r, p)
            return link
        case 1:
            try skipViaStation(&r, version)
            return nil
        case 2:
            let p = try r.preamble(ZoneField.self, in: version, extensible: true)
            if p.has(.carrierNum) { _ = try r.integer(1, 32000) }
            if p.has(.carrierIA5) { _ = try r.ia5String() }
            if p.has(.stationCodeTable) { _ = try r.enumerated(5, extensible: false) }
            if p.has(.entryStationNum) { _ = try r.integer(1, 9_999_999) }
            if p.has(.entryStationIA5) { _ = try r.ia5String() }
            if p.has(.terminatingStationNum) { _ = try r.integer(1, 9_999_999) }
            if p.has(.terminatingStationIA5) { _ = try r.ia5String() }
            if p.has(.city) { _ = try r.unconstrainedInteger() }
            if p.has(.zoneId) {
                let count = try r.count(limit: RailLimits.maxFCBListItems)
                for _ in 0..<count { _ = try r.unconstrainedInteger() }
            }
            if p.has(.binaryZoneId) { _ = try r.octetString() }
            if p.has(.nutsCode) { _ = try r.ia5String() }
            try r.skipExtensions(p)
            return nil
        default: throw Stop(what: "a regional validity by lines or polygon, not decoded")
        }
    }

    /// `ViaStationType`, recursive through its alternative routes, bounded by ``RailLimits/maxFCBDepth``.
    private static func skipViaStation(_ r: inout UPERReader, _ version: FCBVersion) throws {
        try r.enter()
        defer { r.leave() }
        let p = try r.preamble(ViaStationField.self, in: version, extensible: true)
        if p.has(.stationCodeTable) { _ = try r.enumerated(5, extensible: false) }
        if p.has(.stationNum) { _ = try r.integer(1, 9_999_999) }
        if p.has(.stationIA5) { _ = try r.ia5String() }
        for field in [ViaStationField.alternativeRoutes, .route] where p.has(field) {
            let count = try r.count(limit: RailLimits.maxFCBListItems)
            for _ in 0..<count { try skipViaStation(&r, version) }
        }
        _ = try r.bit()  // border
        _ = try carriers(&r, p, num: .carrierNum, ia5: .carrierIA5)
        if p.has(.seriesId) { _ = try r.unconstrainedInteger() }
        if p.has(.routeId) { _ = try r.unconstrainedInteger() }
        for field in [ViaStationField.includedServiceBrands, .excludedServiceBrands] where p.has(field) { try skipIntegers(&r, 1, 32000) }
        try r.skipExtensions(p)
    }

    private static func readPass(_ r: inout UPERReader, _ version: FCBVersion) throws -> FCBPass {
        let p = try r.preamble(PassField.self, in: version, extensible: true)
        var pass = FCBPass()
        pass.reference = try reference(&r, p, numFirst: true)
        pass.productOwner = try product(&r, p, version)
        if p.has(.passType) { pass.passType = try r.integer(1, 250) }
        if p.has(.passDescription) { pass.passDescription = try r.utf8String() }
        if p.has(.classCode) { pass.travelClass = try travelClass(&r, version) }
        try validity(
            &r, p, version, from: &pass.validFromDay, fromTime: &pass.validFromTime, until: &pass.validUntilDay, untilTime: &pass.validUntilTime)
        if p.has(.validityPeriodDetails) { throw Partial(document: .pass(pass), what: PassField.validityPeriodDetails.rawValue) }
        if p.has(.numberOfValidityDays) { _ = try r.integer(0, version == .v3 ? 500 : 370) }
        if p.has(.trainValidity) { throw Partial(document: .pass(pass), what: PassField.trainValidity.rawValue) }
        if p.has(.numberOfPossibleTrips) { _ = try r.integer(1, 250) }
        if p.has(.numberOfDaysOfTravel) { _ = try r.integer(1, 250) }
        if p.has(.activatedDay) { try skipIntegers(&r, 0, version == .v3 ? 500 : 370) }
        if p.has(.countries) { try skipIntegers(&r, 1, 250) }
        _ = try carriers(&r, p, num: .includedCarrierNum, ia5: .includedCarrierIA5)
        _ = try carriers(&r, p, num: .excludedCarrierNum, ia5: .excludedCarrierIA5)
        try finishing(
            &r, p,
            order: [.includedServiceBrands, .excludedServiceBrands, .validRegion, .tariffs, .price, .vatDetail, .infoText, .extension],
            document: .pass(pass))
        return pass
    }

    /// The components after the ones shown, in the schema's `order`: lists of numbers, the price,
    /// the text and the extension are read past; a structured one (tariffs, regions, VAT,
    /// luggage) ends the reading after this document.
    private static func finishing<Field: TrailingFields>(
        _ r: inout UPERReader, _ p: Presence<Field>, order: [Field], document: FCBDocument
    ) throws {
        for field in order where p.has(field) {
            switch field.trailing {
            case .serviceBrands: try skipIntegers(&r, 1, 32000)
            case .price: _ = try r.unconstrainedInteger()
            case .infoText: _ = try r.utf8String()
            case .transportTypes: try skipIntegers(&r, 0, 31)
            case .extensionData: try skipExtensionData(&r)
            case .structured: throw Partial(document: document, what: field.rawValue)
            }
        }
        try r.skipExtensions(p)
    }

    private static func validity<Field: ValidityFields>(
        _ r: inout UPERReader, _ p: Presence<Field>, _ version: FCBVersion, from: inout Int, fromTime: inout Int?, until: inout Int,
        untilTime: inout Int?
    ) throws {
        let minutes = version == .v13 ? 1440 : 1439
        if p.has(.validFromDay) { from = try r.integer(version == .v3 ? -367 : -1, 700) }
        if p.has(.validFromTime) { fromTime = try r.integer(0, minutes) }
        if p.has(.validFromUTCOffset) { _ = try r.integer(-60, 60) }
        if p.has(.validUntilDay) {
            until = try r.integer(version == .v13 ? 0 : -1, version == .v3 ? 500 : 370)
        }
        if p.has(.validUntilTime) { untilTime = try r.integer(0, minutes) }
        if p.has(.validUntilUTCOffset) { _ = try r.integer(-60, 60) }
    }

    private static func skipIntegers(_ r: inout UPERReader, _ lower: Int, _ upper: Int) throws {
        let count = try r.count(limit: RailLimits.maxFCBListItems)
        for _ in 0..<count { _ = try r.integer(lower, upper) }
    }

    private static func skipExtensionData(_ r: inout UPERReader) throws {
        _ = try r.ia5String()
        _ = try r.octetString()
    }

    /// GeoCoordinateType (no extension marker): units, system, hemispheres, two integers, accuracy.
    private static func skipGeoCoordinate(_ r: inout UPERReader) throws {
        let p = try r.preamble(Array(GeoCoordinateField.allCases), extensible: false)
        if p.has(.geoUnit) { _ = try r.enumerated(5, extensible: false) }
        if p.has(.coordinateSystem) { _ = try r.enumerated(2, extensible: false) }
        if p.has(.hemisphereLongitude) { _ = try r.enumerated(2, extensible: false) }
        if p.has(.hemisphereLatitude) { _ = try r.enumerated(2, extensible: false) }
        _ = try r.unconstrainedInteger()
        _ = try r.unconstrainedInteger()
        if p.has(.accuracy) { _ = try r.enumerated(5, extensible: false) }
    }

    /// A document read up to a component this decoder does not know: kept, and the reading ends.
    struct Partial: Error {
        var document: FCBDocument
        var what: String
    }
}
