import BCBP
import Documents
import EventStore
import JSON
import MIME
import Markup
public import RailTicket
import Reservations
import ReservoirBase
import Synchronization
import Trust

/// The UIC key list of `--rail-keys`, read the first time a rail ticket needs it: a message
/// without one never reads the file.
public final class RailKeySource: Sendable {
    public let path: String
    private let loaded = Mutex<Result<RailKeyList, RailKeyListError>?>(nil)

    public init(path: String) { self.path = path }

    /// The list, or why it cannot be read (said once per message that needs it).
    public func keys() -> Result<RailKeyList, RailKeyListError> {
        loaded.withLock { cached in
            if let cached { return cached }
            let result: Result<RailKeyList, RailKeyListError>
            do throws(RailKeyListError) {
                result = .success(try RailKeyList(path: path))
            } catch {
                result = .failure(error)
            }
            cached = result
            return result
        }
    }
}

extension ReservationPipeline {
    /// What a message's documents gave: reservations (a rail ticket's with its own verdict,
    /// a boarding pass's under the message's) and notes.
    struct DocumentItems {
        var items: [ReportedReservation] = []
        var diagnostics: [ReportDiagnostic] = []
    }

    /// The leaves of the message's own body that are documents: PDFs and images, by media type
    /// (``DocumentType/init(mediaType:fileName:)``). Parts inside an attached message are its own.
    static func documentParts(_ message: Message) -> [(MIMEPart, DocumentType)] {
        var result: [(MIMEPart, DocumentType)] = []
        func walk(_ part: MIMEPart) {
            if part.contentType.type == "message", part.depth > 0 { return }
            if part.contentType.isMultipart {
                for child in part.children { walk(child) }
            } else if let type = DocumentType(mediaType: part.contentType.mediaType, fileName: part.filename) {
                result.append((part, type))
            }
        }
        walk(message.root)
        return result
    }

    /// Every PDF and image of the message read for its bar codes by `reservoir-document`, at
    /// most ``DocumentLimits/maxDocumentsPerMessage``. A boarding pass (IATA BCBP) becomes flights
    /// decided like the message's markup: its bytes are the sender's only as far as the
    /// vouching signature covers them, and its year comes from the signed `Date:` alone
    /// (`signedDate`). A rail ticket (UIC 918.3) vouches for itself when its railway's signature
    /// verifies with the `--rail-keys` list; otherwise it too is the message's. Nothing here
    /// runs for a message without a document; a message read in pieces (over 2 MB) holds no
    /// attachment bodies and its documents are reported, not read. `reader` reads one
    /// document's bar codes (``documentReader``, through the analysis that keeps them).
    func readDocuments(
        _ message: Message, signedDate: Int64?, listing: Bool, wholeMessage: Bool,
        reader: ([UInt8], DocumentType, Int) -> DocumentReading
    ) -> DocumentItems {
        var found = DocumentItems()
        let parts = Self.documentParts(message)
        guard !parts.isEmpty else { return found }
        guard wholeMessage else {
            found.diagnostics.append(
                ReportDiagnostic(
                    .document(.tooLarge), message: "the message is over 2 MB and its attachments are not read: its documents are not read"))
            return found
        }
        let deadline = DocumentReader.monotonicMilliseconds() + DocumentLimits.messageBudgetMilliseconds
        for (index, (part, type)) in parts.enumerated() {
            guard index < DocumentLimits.maxDocumentsPerMessage else {
                found.diagnostics.append(
                    ReportDiagnostic(
                        .document(.truncated),
                        message: "more than \(DocumentLimits.maxDocumentsPerMessage) documents in one message: the rest are not read"))
                break
            }
            let name = part.filename ?? type.rawValue.uppercased()
            let left = deadline - DocumentReader.monotonicMilliseconds()
            guard left > 100 else {
                found.diagnostics.append(
                    ReportDiagnostic(
                        .document(.timedOut),
                        message: "\(name): the message's documents took their \(DocumentLimits.messageBudgetMilliseconds / 1000) s: not read"))
                continue
            }
            // Its opening first: a part that is no document of its type (``DocumentType/opens(_:)``)
            // is not decoded whole, nor handed to a reader. 4,096 encoded bytes decode to more
            // than the 1,024 a PDF's header may lie within, in base64 and quoted-printable alike.
            let reading =
                type.opens(message.decodedBody(of: part, encodedPrefix: 4096))
                ? reader(message.decodedBody(of: part), type, min(left, DocumentLimits.timeBudgetMilliseconds))
                : DocumentReading(failure: .unreadable)
            if let failure = reading.failure {
                found.diagnostics.append(ReportDiagnostic(.document(failure), message: "\(name): " + Self.sentence(failure)))
            }
            for barcode in reading.barcodes {
                if RailTicket.looksLikeRailTicket(barcode.bytes) {
                    readRailTicket(barcode, document: name, listing: listing, into: &found)
                } else if barcode.bytes.first == UInt8(ascii: "M") {
                    readBoardingPass(barcode, document: name, signedDate: signedDate, listing: listing, into: &found)
                } else {
                    found.diagnostics.append(
                        ReportDiagnostic(
                            .documentCodeNotRead,
                            message: "\(name), page \(barcode.page): a \(barcode.format) code that is neither a boarding pass nor a rail ticket"))
                }
            }
        }
        return found
    }

    private func readBoardingPass(_ barcode: DocumentBarcode, document: String, signedDate: Int64?, listing: Bool, into found: inout DocumentItems) {
        let pass: BoardingPass
        switch BCBPReader.read(barcode.bytes) {
        case .success(let read): pass = read
        case .failure(let refusal):
            found.diagnostics.append(
                ReportDiagnostic(
                    .documentBoardingPassInvalid, message: "\(document), page \(barcode.page): the boarding pass code does not read (\(refusal))"))
            return
        }
        var items: [JSONValue] = []
        var unsignedYear = false
        for leg in pass.legs {
            var day: String?
            if let dayOfYear = leg.dayOfYear {
                // The year is not in the bar code: the signed Date places it; without one the
                // clock does, and the flight is listed, never stored.
                let evidence = signedDate ?? now
                if signedDate == nil {
                    unsignedYear = true
                    if !listing {
                        found.diagnostics.append(
                            ReportDiagnostic(
                                .documentYearUnsigned,
                                message:
                                    "\(document), page \(barcode.page): flight \(leg.carrier) \(leg.flightNumber) \(leg.from)–\(leg.to) "
                                    + "(\(leg.bookingReference)) is on day \(dayOfYear) of a year nothing signed gives: "
                                    + "not stored (`reservoir extract` lists it)"))
                    }
                }
                day = FlightDate.resolve(dayOfYear: dayOfYear, near: evidence).map(FlightDate.text)
            }
            items.append(Self.flight(pass, leg: leg, day: day))
        }
        let read = ReservationReader.read(
            items.map { StructuredItem(value: $0, source: .jsonLD) }, now: readingClock(listing: listing), messageDate: signedDate,
            keepEnded: listing)
        found.diagnostics += read.diagnostics.map { ReportDiagnostic(.reservations($0.code), message: $0.message, detail: $0.detail) }
        for var reservation in read.reservations {
            if unsignedYear, !reservation.marks.contains(.yearUnsigned) { reservation.marks.append(.yearUnsigned) }
            guard listing || reservation.marks.isEmpty else { continue }
            found.items.append(ReportedReservation(reservation: reservation, event: CalendarEvent(reservation), change: nil, source: .markup))
        }
    }

    private func readRailTicket(_ barcode: DocumentBarcode, document: String, listing: Bool, into found: inout DocumentItems) {
        var keys: RailKeyList?
        if let source = railKeys {
            switch source.keys() {
            case .success(let list): keys = list
            case .failure(let error):
                found.diagnostics.append(
                    ReportDiagnostic(.rail(.railSignature), message: "the rail key list \(source.path) cannot be read: \(error)", detail: "key-list"))
            }
        }
        let reading = RailTicket.read(barcode.bytes, keys: keys)
        found.diagnostics += reading.diagnostics.map {
            ReportDiagnostic(.rail($0.code), message: "\(document), page \(barcode.page): " + $0.message, detail: $0.detail)
        }
        var issuedAt: Int64?
        if let head = reading.ticket?.head {
            issuedAt = CivilTimeFields.epoch(year: head.year, month: head.month, day: head.day, hour: head.hour, minute: head.minute)
        }
        let specimen = reading.diagnostics.contains { $0.code == .railSpecimen }
        let decision: DocumentTrustDecision
        switch reading.signature {
        case .verified(let issuer, let name, let keyID):
            var keyRefusal: TrustRefusal?
            if let key = reading.key, let ticket = reading.ticket {
                switch key.use(for: ticket, now: now) {
                case .allowed: break
                case .notValid(let failure): keyRefusal = .railKeyNotValid(reason: failure.rawValue)
                case .notForOwner(let owner): keyRefusal = .railKeyNotForOwner(owner: owner.map(String.init) ?? "")
                }
            }
            decision = policy.decide(
                railway: issuer, railwayName: name, keyID: keyID, failure: nil, specimen: specimen, keyRefusal: keyRefusal, issuedAt: issuedAt)
        default:
            decision = policy.decide(
                railway: nil, railwayName: nil, keyID: nil, failure: reading.signature.code, specimen: specimen, issuedAt: issuedAt)
        }
        let read = ReservationReader.read(
            reading.items.map { StructuredItem(value: $0, source: .jsonLD) }, now: readingClock(listing: listing), messageDate: issuedAt,
            keepEnded: listing)
        found.diagnostics += read.diagnostics.map { ReportDiagnostic(.reservations($0.code), message: $0.message, detail: $0.detail) }
        for reservation in read.reservations where listing || reservation.marks.isEmpty {
            // A ticket its railway's signature does not vouch for is the message's, like its markup.
            let source: ReservationSource = decision.trusted ? .document(decision) : .markup
            found.items.append(ReportedReservation(reservation: reservation, event: CalendarEvent(reservation), change: nil, source: source))
        }
        if !read.reservations.isEmpty, let refusal = decision.refusal {
            found.diagnostics.append(
                ReportDiagnostic(.untrusted(refusal.code), message: "\(document): rail ticket: \(refusal.sentence); the message's own proof decides"))
        }
    }

    static func sentence(_ failure: DocumentReadFailure) -> String {
        switch failure {
        case .readerMissing: "reservoir-document is not installed beside this program: its bar codes are not read"
        case .timedOut: "reading it took longer than its time (at most \(DocumentLimits.timeBudgetMilliseconds / 1000) s): stopped"
        case .readerFailed: "the document reader stopped before its end (a limit on memory or time, or a damaged file)"
        case .unreadable: "not a readable document of its kind"
        case .tooLarge: "a page or image over the pixel limit, or a file over the size limit: not read"
        case .truncated: "pages or codes past the limits were not read"
        }
    }

    /// One leg of a boarding pass as a schema.org FlightReservation: what the bar code says,
    /// the day without a time (the code has none); confirmed, since a boarding pass is issued
    /// for a confirmed booking.
    static func flight(_ pass: BoardingPass, leg: BoardingPassLeg, day: String?) -> JSONValue {
        func object(_ members: [(String, JSONValue?)]) -> JSONValue {
            .object(JSONObject(members.compactMap { key, value in value.map { JSONObject.Member(key: key, value: $0) } }))
        }
        let name = BoardingPass.displayName(pass.passengerName)
        return object([
            ("@type", .string("FlightReservation")),
            ("reservationNumber", .string(leg.bookingReference)),
            ("reservationStatus", .string("https://schema.org/ReservationConfirmed")),
            ("underName", object([("@type", .string("Person")), ("name", .string(name))])),
            ("airplaneSeat", leg.seat.isEmpty ? nil : .string(leg.seat)),
            (
                "reservationFor",
                object([
                    ("@type", .string("Flight")),
                    ("flightNumber", .string(leg.flightNumber)),
                    ("airline", object([("@type", .string("Airline")), ("iataCode", .string(leg.carrier))])),
                    ("departureAirport", object([("@type", .string("Airport")), ("iataCode", .string(leg.from))])),
                    ("arrivalAirport", object([("@type", .string("Airport")), ("iataCode", .string(leg.to))])),
                    ("departureTime", day.map(JSONValue.string)),
                ])
            ),
        ])
    }
}

/// Unix seconds of a civil time read as UTC; nil for fields out of range.
enum CivilTimeFields {
    static func epoch(year: Int, month: Int, day: Int, hour: Int, minute: Int) -> Int64? {
        guard year > 1970, (1...12).contains(month), (1...CivilTime.daysIn(month: month, year: year)).contains(day), (0...23).contains(hour),
            (0...59).contains(minute)
        else {
            return nil
        }
        return CivilTime.daysFromCivil(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60)
    }
}
