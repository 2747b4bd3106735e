import ReservoirBase

/// A `mailto:` URI (RFC 6068) read as a mail client reads it: the addresses of its path and of
/// its `to` header field, each percent-decoded (RFC 6068 §2, RFC 3986 §2.1), its header fields
/// and its fragment. A calendar user address such as ORGANIZER is such a URI (RFC 5545 §3.3.3),
/// so the address ends at `?` or `#`, `%40` is an `@`, and `mailto:a@x,b@y` names two addresses.
///
/// Refused rather than guessed (``Problem``): a character no URI or IRI holds, a `%` not
/// followed by two hexadecimal digits or decoding to bytes that are not UTF-8, and an address
/// that is not `local@domain` with a dot-atom on both sides (RFC 5322 §3.2.3, §3.4.1). A quoted
/// local part (`"a@b"@c`) and a domain literal (`a@[192.0.2.1]`) are legal addr-specs that
/// readers split differently, or that name no organisation; they are refused too. Never traps;
/// linear in the length of the text.
public struct MailtoURI: Sendable, Equatable {
    /// One `name=value` of the query (RFC 6068 §2 `hfield`), both percent-decoded, the name
    /// lowercased (header field names are case-insensitive, RFC 5322 §1.2.2).
    public struct HeaderField: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Why a text is not read as a `mailto:` URI.
    public enum Problem: String, Sendable, Equatable, CaseIterable {
        /// Another scheme, or no scheme.
        case notMailto = "not-mailto"
        /// A character that is not allowed in a URI (RFC 3986 §2) or an IRI (RFC 3987 §2.2):
        /// a space, a control, `<`, `"`, a Unicode separator or format character.
        case invalidCharacter = "invalid-character"
        /// `%` without two hexadecimal digits, or percent-encoded bytes that are not UTF-8.
        case invalidPercentEncoding = "invalid-percent-encoding"
        /// An address, in the path or in a `to` header field, that is not a dot-atom `local@domain`.
        case invalidAddress = "invalid-address"
    }

    /// What reading a text gave.
    public enum Reading: Sendable, Equatable {
        case uri(MailtoURI)
        case refused(Problem)
    }

    /// Every address the URI sends to: those of its path, then those of each `to` header field
    /// (RFC 6068 §2: `mailto:a@x?to=b@y` names both), decoded, as written otherwise.
    public var addresses: [String]
    /// The header fields of the query in order, `to` included.
    public var headerFields: [HeaderField]
    /// The text after `#`, undecoded; nil without one. RFC 6068 gives it no meaning.
    public var fragment: String?

    public init(addresses: [String], headerFields: [HeaderField] = [], fragment: String? = nil) {
        self.addresses = addresses
        self.headerFields = headerFields
        self.fragment = fragment
    }

    /// Reads `text` (surrounding spaces and tabs are not part of it); the scheme is
    /// case-insensitive (RFC 3986 §3.1).
    public static func read(_ text: some StringProtocol) -> Reading {
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        let scheme = Array("mailto:".utf8)
        guard bytes.count >= scheme.count, zip(bytes.prefix(scheme.count), scheme).allSatisfy({ ASCII.lowercased($0.0) == $0.1 }) else {
            return .refused(.notMailto)
        }
        let rest = bytes.dropFirst(scheme.count)
        guard let characters = String(validating: rest, as: UTF8.self), characters.unicodeScalars.allSatisfy(Self.isAllowed) else {
            return .refused(.invalidCharacter)
        }
        // RFC 3986 §3: the path ends at the first `?` or `#`, the query at the first `#`.
        let hash = rest.firstIndex(of: 0x23)
        let beforeFragment = rest[..<(hash ?? rest.endIndex)]
        let question = beforeFragment.firstIndex(of: 0x3F)
        let path = beforeFragment[..<(question ?? beforeFragment.endIndex)]
        var uri = MailtoURI(addresses: [])
        if let hash { uri.fragment = String(decoding: rest[rest.index(after: hash)...], as: UTF8.self) }
        // RFC 6068 §2: `to = addr-spec *("," addr-spec)`; an empty path names nobody.
        if !path.isEmpty {
            for segment in path.split(separator: 0x2C, omittingEmptySubsequences: false) {
                guard let decoded = percentDecoded(segment) else { return .refused(.invalidPercentEncoding) }
                guard isAddress(decoded) else { return .refused(.invalidAddress) }
                uri.addresses.append(decoded)
            }
        }
        if let question {
            let query = beforeFragment[beforeFragment.index(after: question)...]
            for field in query.split(separator: 0x26) {
                let equals = field.firstIndex(of: 0x3D)
                guard let name = percentDecoded(field[..<(equals ?? field.endIndex)]),
                    let value = percentDecoded(equals.map { field[field.index(after: $0)...] } ?? field[field.endIndex...])
                else { return .refused(.invalidPercentEncoding) }
                let lowered = name.lowercased()
                uri.headerFields.append(HeaderField(name: lowered, value: value))
                guard lowered == "to" else { continue }
                // The value is a header field body: addresses separated by commas, white space
                // around them allowed.
                for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let address = String(item).trimmingASCII(ASCII.isSpaceOrLineBreak)
                    if address.isEmpty, value.trimmingASCII(ASCII.isSpaceOrLineBreak).isEmpty { continue }
                    guard isAddress(address) else { return .refused(.invalidAddress) }
                    uri.addresses.append(address)
                }
            }
        }
        return .uri(uri)
    }

    /// RFC 3986 §2.1: `%XX` is the byte XX; nil for a `%` without two hexadecimal digits or a
    /// result that is not UTF-8.
    static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String? {
        PercentEncoding.decoded(bytes).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Scalars a URI may hold as written (RFC 3986 §2.2, §2.3, `%`), and the characters an IRI
    /// adds (RFC 3987 §2.2 `ucschar`), except separators, controls and format characters,
    /// which no reader agrees on.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": return true
            default: return "-._~:/?#[]@!$&'()*+,;=%".unicodeScalars.contains(scalar)
            }
        }
        switch scalar.properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return false
        default: return true
        }
    }

    /// `local@domain` with a dot-atom local part (RFC 5322 §3.2.3 `atext`, or any character
    /// beyond ASCII, RFC 6532 §3.2) and a domain of dot-separated labels of letters, digits,
    /// hyphens or characters beyond ASCII.
    static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let local = parts[0].unicodeScalars.split(separator: ".", omittingEmptySubsequences: false)
        let domain = parts[1].unicodeScalars.split(separator: ".", omittingEmptySubsequences: false)
        return local.allSatisfy { !$0.isEmpty && $0.allSatisfy(isAtom) }
            && domain.allSatisfy { label in !label.isEmpty && label.allSatisfy { isAllowed($0) && (!$0.isASCII || isLabelCharacter($0)) } }
    }

    /// RFC 5322 §3.2.3 `atext`, and every character beyond ASCII that ``isAllowed(_:)`` lets pass.
    static func isAtom(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return isAllowed(scalar) }
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": return true
        default: return "!#$%&'*+-/=?^_`{|}~".unicodeScalars.contains(scalar)
        }
    }

    static func isLabelCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-": true
        default: false
        }
    }
}

extension MailtoURI {
    /// The one address the URI names, when it is a `mailto:` URI naming exactly one recipient
    /// and nothing a reader could take otherwise; else why not.
    public var singleAddress: SingleAddress {
        // A fragment has no meaning for mailto (RFC 6068 §2); a reader that keeps it in the
        // address would see another domain after its last `@`.
        if fragment != nil { return .notOne(.fragment) }
        // RFC 6068 §2: `cc` and `bcc` name recipients as `to` does.
        let copies = headerFields.filter { ($0.name == "cc" || $0.name == "bcc") && !$0.value.trimmingASCII(ASCII.isSpaceOrLineBreak).isEmpty }.count
        let count = addresses.count + copies
        guard count == 1, let address = addresses.first else { return .notOne(count == 0 ? .noAddress : .severalAddresses(count)) }
        return .one(address)
    }

    /// Whether a URI names exactly one recipient (``singleAddress``).
    public enum SingleAddress: Sendable, Equatable {
        case one(String)
        case notOne(OrganizerProblem)
    }
}

/// Why a calendar user address (ORGANIZER, RFC 5545 §3.8.4.3) does not name exactly one mail
/// address a reader can agree on.
public enum OrganizerProblem: Sendable, Equatable {
    /// The component has more than one ORGANIZER (RFC 5545 §3.6.1 allows one): readers take
    /// different ones.
    case severalOrganizers(Int)
    /// A URI other than `mailto:` (`urn:uuid:…`, `https:`): it names no mail domain.
    case notMailto
    /// A `mailto:` URI that does not read (``MailtoURI/Problem``).
    case malformed(MailtoURI.Problem)
    /// A `mailto:` URI naming no address (`mailto:?subject=x`).
    case noAddress
    /// A `mailto:` URI naming several recipients (`mailto:a@x,b@y`, `mailto:a@x?to=b@y`, `cc`).
    case severalAddresses(Int)
    /// A `mailto:` URI with a fragment (`#…`), which RFC 6068 leaves undefined.
    case fragment
}
