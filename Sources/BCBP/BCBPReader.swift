/// Reads the bar code of a boarding pass (IATA Resolution 792, "M" format): the mandatory
/// items, and the conditional section where present, skipping each part by its declared size.
///
/// Mandatory items have fixed widths: format code (1), number of legs (1), passenger name (20),
/// electronic ticket indicator (1); then per leg PNR (7), from (3), to (3), carrier (3), flight
/// number (5), date of flight as day of year (3), compartment (1), seat (4), check-in sequence
/// (5), passenger status (1) and the size of the leg's variable field (2, hexadecimal). The
/// first leg's variable field starts with `>`, the version, the size of the unique conditional
/// items and those items; every leg's then holds the size of its repeated conditional items
/// and those; the rest is for the airline's use. A security section (`^`) may follow.
/// Never traps; what it cannot read is a ``BCBPRefusal``.
public enum BCBPReader {
    public static func read(_ text: String) -> Result<BoardingPass, BCBPRefusal> {
        read(Array(text.utf8))
    }

    public static func read(_ bytes: [UInt8]) -> Result<BoardingPass, BCBPRefusal> {
        guard bytes.count <= BCBPLimits.maxBytes else { return .failure(.tooLong) }
        var cursor = Cursor(bytes: bytes)
        do {
            guard try cursor.take(1) == "M" else { return .failure(.notFormatM) }
            guard let legCount = Int(try cursor.take(1)), (1...BCBPLimits.maxLegs).contains(legCount) else {
                return .failure(.invalidLegCount)
            }
            let name = try cursor.take(20).trimmedSpaces
            let ticket = try cursor.take(1)
            var pass = BoardingPass(passengerName: name, electronicTicket: ticket == "E", legs: [], version: nil, issued: nil)
            for index in 0..<legCount {
                var leg = try readMandatoryLeg(&cursor)
                let size = try cursor.hexSize(2)
                var field = try cursor.sub(size)
                if index == 0, field.peek == UInt8(ascii: ">") {
                    _ = try field.take(1)
                    pass.version = Int(try field.take(1))
                    let uniqueSize = try field.hexSize(2)
                    var unique = try field.sub(uniqueSize)
                    readUnique(&unique, into: &pass)
                }
                if !field.isAtEnd {
                    // Repeated conditional items (Resolution 792, items 142 to 118); an
                    // absent trailing item is allowed, its declared size decides.
                    let repeatedSize = try field.hexSize(2)
                    var repeated = try field.sub(repeatedSize)
                    readRepeated(&repeated, into: &leg)
                }
                pass.legs.append(leg)
            }
            return .success(pass)
        } catch let refusal {
            return .failure(refusal)
        }
    }

    private static func readMandatoryLeg(_ cursor: inout Cursor) throws(BCBPRefusal) -> BoardingPassLeg {
        let pnr = try cursor.take(7).trimmedSpaces
        let from = try cursor.take(3).trimmedSpaces
        let to = try cursor.take(3).trimmedSpaces
        let carrier = try cursor.take(3).trimmedSpaces
        let flight = try cursor.take(5).trimmedSpaces
        let date = try cursor.take(3).trimmedSpaces
        let compartment = try cursor.take(1).trimmedSpaces
        let seat = try cursor.take(4).trimmedSpaces
        let sequence = try cursor.take(5).trimmedSpaces
        let status = try cursor.take(1)
        guard from.count == 3, from.allSatisfy(\.isUppercaseLetter) else { throw .invalidItem("from") }
        guard to.count == 3, to.allSatisfy(\.isUppercaseLetter) else { throw .invalidItem("to") }
        guard (2...3).contains(carrier.count), carrier.allSatisfy({ $0.isUppercaseLetter || $0.isDigit }) else {
            throw .invalidItem("carrier")
        }
        guard let flightNumber = flightNumber(flight) else { throw .invalidItem("flight number") }
        var day: Int?
        if !date.isEmpty {
            guard let value = Int(date), (1...366).contains(value), date.allSatisfy(\.isDigit) else { throw .invalidItem("date of flight") }
            day = value
        }
        return BoardingPassLeg(
            bookingReference: pnr, from: from, to: to, carrier: carrier, flightNumber: flightNumber, dayOfYear: day,
            compartment: compartment, seat: dropLeadingZeros(seat), checkInSequence: dropLeadingZeros(sequence), passengerStatus: status)
    }

    /// `0834 ` → `834`, `0012A` → `12A`: four digits and an optional letter (item 43).
    static func flightNumber(_ text: String) -> String? {
        let digits = text.prefix { $0.isDigit }
        let suffix = text.dropFirst(digits.count)
        guard !digits.isEmpty, suffix.count <= 1, suffix.allSatisfy(\.isUppercaseLetter) else { return nil }
        return dropLeadingZeros(String(digits)) + suffix
    }

    /// `001A` → `1A`, `0025` → `25`; text that does not start with a zero before a digit stays.
    static func dropLeadingZeros(_ text: String) -> String {
        var trimmed = Substring(text)
        while trimmed.count > 1, trimmed.first == "0", trimmed.dropFirst().first?.isDigit == true { trimmed = trimmed.dropFirst() }
        return String(trimmed)
    }

    /// Unique conditional items: passenger description (1), source of check-in (1), source of
    /// issuance (1), date of issue (4: last digit of the year, day of the year), and the rest,
    /// which Reservoir does not use.
    private static func readUnique(_ unique: inout Cursor, into pass: inout BoardingPass) {
        guard (try? unique.take(3)) != nil, let issue = try? unique.take(4) else { return }
        if let digit = issue.first?.wholeNumberValue, let day = Int(issue.dropFirst()), (1...366).contains(day) {
            pass.issued = (digit, day)
        }
    }

    /// Repeated conditional items: airline numeric code (3), document number (10), selectee (1),
    /// document verification (1), marketing carrier (3), frequent flyer airline (3) and number
    /// (16), and the rest, which Reservoir does not use. Each is read only when present.
    private static func readRepeated(_ repeated: inout Cursor, into leg: inout BoardingPassLeg) {
        guard let airline = try? repeated.take(3), let document = try? repeated.take(10) else { return }
        let ticket = (airline + document).trimmedSpaces
        if ticket.count == 13, ticket.allSatisfy(\.isDigit) { leg.ticketNumber = ticket }
        guard (try? repeated.take(2)) != nil, let marketing = try? repeated.take(3) else { return }
        if !marketing.trimmedSpaces.isEmpty { leg.marketingCarrier = marketing.trimmedSpaces }
        guard let ffAirline = try? repeated.take(3), let ffNumber = try? repeated.take(16) else { return }
        if !ffAirline.trimmedSpaces.isEmpty, !ffNumber.trimmedSpaces.isEmpty {
            leg.frequentFlyer = (ffAirline.trimmedSpaces, ffNumber.trimmedSpaces)
        }
    }

    /// A bounded view of the bar code's bytes.
    struct Cursor {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        init(bytes: [UInt8]) {
            self.bytes = bytes
            position = 0
            end = bytes.count
        }

        private init(bytes: [UInt8], position: Int, end: Int) {
            self.bytes = bytes
            self.position = position
            self.end = end
        }

        var isAtEnd: Bool { position >= end }
        var peek: UInt8? { position < end ? bytes[position] : nil }

        /// The next `count` bytes as text (bytes outside ASCII read as replacement characters).
        mutating func take(_ count: Int) throws(BCBPRefusal) -> String {
            guard count <= end - position else { throw .truncated(at: end) }
            defer { position += count }
            return String(decoding: bytes[position..<position + count], as: UTF8.self)
        }

        /// A size written as `digits` hexadecimal characters.
        mutating func hexSize(_ digits: Int) throws(BCBPRefusal) -> Int {
            let at = position
            let text = try take(digits)
            guard text.utf8.allSatisfy(\.isHexDigit), let size = Int(text, radix: 16) else { throw .invalidConditionalSize(at: at) }
            return size
        }

        /// The next `count` bytes as a cursor of their own, this one moved past them.
        mutating func sub(_ count: Int) throws(BCBPRefusal) -> Cursor {
            guard count <= end - position else { throw .invalidConditionalSize(at: position) }
            defer { position += count }
            return Cursor(bytes: bytes, position: position, end: position + count)
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}

extension Character {
    fileprivate var isDigit: Bool { isASCII && isNumber }
    fileprivate var isUppercaseLetter: Bool { isASCII && isUppercase }
}

extension String {
    fileprivate var trimmedSpaces: String {
        var scalars = Substring(self)
        while scalars.last == " " { scalars = scalars.dropLast() }
        while scalars.first == " " { scalars = scalars.dropFirst() }
        return String(scalars)
    }
}
