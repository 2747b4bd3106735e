/// A reader of ASN.1 unaligned PER (ITU-T X.691) bits, most significant bit first, as the ERA
/// FCB is encoded. Every read is bounds-checked; a value that would need more bits than remain,
/// a length past ``RailLimits``, or a fragmented length ends the reading with an error.
struct UPERReader {
    enum Failure: Error, Equatable {
        /// The bits end before the value does.
        case truncated
        /// A length, count or integer past what the reader accepts (X.691 allows more).
        case tooLarge(String)
        /// A value the schema does not allow (an enumeration index out of range, a fragment).
        case malformed(String)
    }

    private let bytes: [UInt8]
    private(set) var position = 0
    private var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remainingBits: Int { bytes.count * 8 - position }

    mutating func bit() throws(Failure) -> Bool {
        guard position < bytes.count * 8 else { throw .truncated }
        let byte = bytes[position >> 3]
        let value = (byte >> (7 - UInt8(position & 7))) & 1
        position += 1
        return value == 1
    }

    /// `count` bits (at most 63) as an unsigned number.
    mutating func bits(_ count: Int) throws(Failure) -> UInt64 {
        guard count <= 63 else { throw .tooLarge("a field of \(count) bits") }
        guard count <= remainingBits else { throw .truncated }
        var value: UInt64 = 0
        for _ in 0..<count { value = (value << 1) | (try bit() ? 1 : 0) }
        return value
    }

    /// The number of bits of a constrained whole number with `range` values (X.691 11.5.7.1).
    static func width(_ range: UInt64) -> Int {
        guard range > 1 else { return 0 }
        var bits = 0
        var span = range - 1
        while span > 0 {
            bits += 1
            span >>= 1
        }
        return bits
    }

    /// A constrained whole number in `lower...upper` (X.691 11.5.7, unaligned: the offset from
    /// the lower bound in the fewest bits that hold the range).
    mutating func integer(_ lower: Int, _ upper: Int) throws(Failure) -> Int {
        let range = UInt64(upper - lower) + 1
        let offset = try bits(Self.width(range))
        guard offset < range else { throw .malformed("\(lower + Int(offset)) outside \(lower)...\(upper)") }
        return lower + Int(offset)
    }

    /// A length determinant without an upper bound (X.691 11.9.3.6-8): one octet below 128, two
    /// below 16384; fragmented lengths (16K and more) are refused, no FCB field is that long.
    mutating func length() throws(Failure) -> Int {
        if try !bit() { return Int(try bits(7)) }
        if try !bit() { return Int(try bits(14)) }
        throw .tooLarge("a fragmented length (16384 or more)")
    }

    /// An unconstrained INTEGER (X.691 12.2.6): a length in octets, then two's complement.
    mutating func unconstrainedInteger() throws(Failure) -> Int64 {
        let count = try length()
        guard (1...8).contains(count) else { throw .tooLarge("an integer of \(count) octets") }
        guard count * 8 <= remainingBits else { throw .truncated }
        var value: Int64 = (try bit()) ? -1 : 0
        for _ in 1..<(count * 8) { value = (value << 1) | (try bit() ? 1 : 0) }
        return value
    }

    /// A normally small non-negative whole number (X.691 11.6): an extension's count or index.
    mutating func normallySmall() throws(Failure) -> Int {
        if try !bit() { return Int(try bits(6)) }
        let count = try length()
        guard (1...2).contains(count) else { throw .tooLarge("a normally small number of \(count) octets") }
        return Int(try bits(count * 8))
    }

    /// A count of a SEQUENCE OF without a size constraint, refused past `limit`.
    mutating func count(limit: Int) throws(Failure) -> Int {
        let value = try length()
        guard value <= limit else { throw .tooLarge("a list of \(value) items (limit \(limit))") }
        return value
    }

    /// Octets of a length-prefixed string or OCTET STRING.
    mutating func octets(_ count: Int) throws(Failure) -> [UInt8] {
        guard count * 8 <= remainingBits else { throw .truncated }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        for _ in 0..<count { out.append(UInt8(try bits(8))) }
        return out
    }

    mutating func octetString() throws(Failure) -> [UInt8] { try octets(try length()) }

    /// A UTF8String: a length in octets, the octets (X.691 30.3: not a known-multiplier type).
    mutating func utf8String() throws(Failure) -> String {
        let raw = try octetString()
        guard let text = String(validating: raw, as: UTF8.self) else { throw .malformed("a UTF8String that is not UTF-8") }
        return text
    }

    /// An IA5String of seven-bit characters (X.691 30.5.3, unaligned), `fixed` characters when its
    /// size is fixed, else a length determinant (or a constrained length for `sizes`).
    mutating func ia5String(fixed: Int? = nil, sizes: ClosedRange<Int>? = nil) throws(Failure) -> String {
        let count: Int
        if let fixed {
            count = fixed
        } else if let sizes {
            count = try integer(sizes.lowerBound, sizes.upperBound)
        } else {
            count = try length()
        }
        guard count * 7 <= remainingBits else { throw .truncated }
        var scalars = String.UnicodeScalarView()
        for _ in 0..<count { scalars.append(Unicode.Scalar(UInt8(try bits(7)))) }
        return String(scalars)
    }

    /// An ENUMERATED of `count` root values, with an extension marker when `extensible`; an
    /// extension value is returned as `count + index`.
    mutating func enumerated(_ count: Int, extensible: Bool) throws(Failure) -> Int {
        if extensible, try bit() { return count + (try normallySmall()) }
        return try integer(0, count - 1)
    }

    /// The presence bits of a SEQUENCE's OPTIONAL and DEFAULT components (X.691 19.2), one for
    /// each of `fields` in order, after its extension bit when `extensible`.
    mutating func preamble<Field: SequenceFields>(_ fields: [Field], extensible: Bool) throws(Failure) -> Presence<Field> {
        let extended = extensible ? try bit() : false
        var present = Set<Field>()
        for field in fields where try bit() { present.insert(field) }
        return Presence(extended: extended, present: present)
    }

    /// The presence bits of `Field`'s SEQUENCE in `version`'s schema (``SequenceFields/fields(in:)``).
    mutating func preamble<Field: SequenceFields>(
        _: Field.Type, in version: FCBVersion, extensible: Bool
    ) throws(Failure) -> Presence<Field> {
        try preamble(Field.fields(in: version), extensible: extensible)
    }

    /// The extension additions of a SEQUENCE whose extension bit was set (X.691 19.7-19.9): a
    /// bitmap, then each present addition as an open type, skipped by its length.
    mutating func skipExtensions<Field>(_ presence: Presence<Field>) throws(Failure) {
        guard presence.extended else { return }
        let count = try normallySmall() + 1
        var present = 0
        for _ in 0..<count where try bit() { present += 1 }
        for _ in 0..<present { try skipOpenType() }
    }

    /// An open type (X.691 11.2): a length in octets and that many octets, not read.
    mutating func skipOpenType() throws(Failure) {
        let count = try length()
        guard count * 8 <= remainingBits else { throw .truncated }
        position += count * 8
    }

    /// Nesting of SEQUENCE OF inside SEQUENCE OF is bounded by ``RailLimits/maxFCBDepth``.
    mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= RailLimits.maxFCBDepth else { throw .tooLarge("nesting deeper than \(RailLimits.maxFCBDepth)") }
    }

    mutating func leave() { depth -= 1 }
}

/// Which OPTIONAL and DEFAULT components a SEQUENCE carries, and whether it has extension
/// additions.
struct Presence<Field: Hashable> {
    var extended: Bool
    var present: Set<Field>
    func has(_ field: Field) -> Bool { present.contains(field) }
}
