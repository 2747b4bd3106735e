import CLibIDN2
import Glibc
import ReservoirBase

/// Domain names in one form for comparison: every label an A-label (`xn--…`) or an ASCII
/// letter-digit-hyphen label, lowercased (IDNA2008, RFC 5891 §4 and §5, with Unicode UTS #46
/// non-transitional mapping, as browsers and registries apply it), through libidn2.
///
/// Signing domains come as A-labels, a From domain in SMTPUTF8 mail as U-labels, and Debian's
/// Public Suffix List writes its internationalized suffixes in Unicode: they meet only here.
enum IDNA {
    /// Longest input handed to libidn2, in UTF-8 bytes: four (the longest UTF-8 character) for
    /// each of the 253 characters a DNS name may have (RFC 1035 §2.3.4), past any real name in
    /// U-labels. Longer input is refused without converting it.
    static let maxInputBytes = 1024

    /// The ASCII form of `domain`: A-labels for its non-ASCII labels, lowercased. A domain that
    /// is ASCII with no `xn--` label is only lowercased: libidn2 is never called for it. A
    /// domain with a U-label or an A-label is converted and checked by libidn2; nil when libidn2
    /// rejects it (a disallowed character such as a bidi override, punycode that does not
    /// decode, a label too long) or it is over ``maxInputBytes``.
    static func asciiDomain(_ domain: String) -> String? {
        let bytes = Array(domain.utf8)
        if !needsConversion(bytes) { return String(decoding: bytes.map(ASCII.lowercased), as: UTF8.self) }
        // A NUL would end the C string early: libidn2 would check only what precedes it.
        guard bytes.count <= maxInputBytes, !bytes.contains(0) else { return nil }
        var output: UnsafeMutablePointer<CChar>?
        // "Perform Unicode TR46 non-transitional processing" (idn2.h, IDN2_NONTRANSITIONAL):
        // "ß" stays "ß" (xn--zca) rather than becoming "ss", as IDNA2008 registries have it.
        let status = domain.withCString { idn2_to_ascii_8z($0, &output, Int32(IDN2_NONTRANSITIONAL.rawValue)) }
        defer { idn2_free(output) }
        guard status == Int32(IDN2_OK.rawValue), let output else { return nil }
        return String(cString: output)
    }

    /// Whether a domain has a non-ASCII byte or a label starting with `xn--` (any case): only
    /// then does libidn2 have something to map or to check.
    static func needsConversion(_ bytes: [UInt8]) -> Bool {
        var labelStart = 0
        for (index, byte) in bytes.enumerated() {
            if byte >= 0x80 { return true }
            if byte == UInt8(ascii: ".") {
                labelStart = index + 1
            } else if index == labelStart + 3, isACELabelPrefix(bytes[labelStart...index]) {
                return true
            }
        }
        return false
    }

    /// `xn--`, the ACE prefix of A-labels (RFC 5890 §2.3.2.1), in any case.
    static func isACELabelPrefix(_ prefix: ArraySlice<UInt8>) -> Bool {
        prefix.map(ASCII.lowercased).elementsEqual("xn--".utf8)
    }
}
