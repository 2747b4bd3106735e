import ReservoirBase

/// The links the page makes from what a reservation says: a web page, a telephone number, a
/// map. Every value came from mail, so each is either made into a link of a fixed, harmless
/// form or shown as text; the address of a link is escaped by ``HTMLText`` like any text.
enum PageLinks {
    /// `text` when it is an absolute `http:` or `https:` URL (scheme in any case) with a host
    /// and no space or control character, else nil: a `javascript:`, `data:`, `vbscript:` or
    /// `file:` address would run or read something when tapped, so it is shown as text only
    /// (WHATWG URL §4.1: a browser drops tabs and newlines, so none is let through to hide a
    /// scheme). The reader already refuses such links in new mail; the page checks again for
    /// events stored by other builds or written into a shared store.
    static func web(_ text: String) -> String? {
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = text.dropFirst("https://".count)
        } else if lower.hasPrefix("http://") {
            rest = text.dropFirst("http://".count)
        } else {
            return nil
        }
        // RFC 3986 §3.2: the authority runs to the first "/", "?" or "#"; it must name a host.
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.hasPrefix("@"), !authority.hasPrefix(":") else { return nil }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || (0x7F...0x9F).contains($0.value) }) else { return nil }
        return text
    }

    /// The most digits an international number has (ITU-T E.164 §6.1).
    static let maximumPhoneDigits = 15
    /// The fewest digits read as a number to dial (a short local or service number).
    static let minimumPhoneDigits = 3

    /// A `tel:` URI for a telephone number as people write it (`+1-415-369-9955`,
    /// `(0)44 668 18 00`): RFC 3966 §3 allows only digits, a leading `+` and visual
    /// separators, so the number is kept as its `+` and digits alone (`tel:+14153699955`).
    /// Text holding anything else — letters (`1-800-FLOWERS`), an extension, a second number,
    /// a `+` other than the first character — is not a number to dial and gets no link (nil).
    /// A number without `+` is local; RFC 3966 §5.1.5 would want its `phone-context`, which mail
    /// does not give, so it is dialled as written, as phones do.
    static func telephone(_ text: String) -> String? {
        var out = "tel:"
        var digits = 0
        var seenDigitOrPlus = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "0"..."9":
                out.unicodeScalars.append(scalar)
                digits += 1
                seenDigitOrPlus = true
            case "+":
                guard !seenDigitOrPlus else { return nil }
                out += "+"
                seenDigitOrPlus = true
            // RFC 3966 §3 visual-separator, and the space and slash people write between groups.
            case "-", ".", "(", ")", " ", "/", "\u{A0}": continue
            default: return nil
            }
        }
        guard (minimumPhoneDigits...maximumPhoneDigits).contains(digits) else { return nil }
        return out
    }

    /// An OpenStreetMap search for a place as the reservation names it (its name and postal
    /// address on one line). OpenStreetMap over https rather than a `geo:` URI (RFC 5870):
    /// a `geo:` URI needs coordinates, which mail rarely gives, and phones without a maps app
    /// registered for it (Safari on iOS) do nothing when it is tapped; an https page opens in
    /// every browser, needs no account and carries no tracking identifier. The place is
    /// percent-encoded (RFC 3986 §2.1), so nothing in it can add a parameter or leave the query.
    static func map(_ place: String) -> String? {
        let trimmed = place.trimmingASCII(ASCII.isSpaceOrLineBreak)
        guard !trimmed.isEmpty else { return nil }
        return "https://www.openstreetmap.org/search?query=" + percentEncoded(trimmed)
    }

    /// Each UTF-8 byte outside RFC 3986 §2.3's unreserved set written `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += (hex.count == 1 ? "%0" : "%") + hex
            }
        }
        return out
    }
}
