/// Zone names as the tz database spells them (`Europe/Zurich`, `America/Argentina/Buenos_Aires`,
/// `Etc/GMT+5`, `UTC`): checked before any path is built from one.
public enum ZoneName {
    /// True for 1 to `TimeZoneLimits.maximumZoneNameBytes` bytes of ASCII letters, digits, `_`,
    /// `-`, `+` and `/`, where `/` separates non-empty components, no component is `.` or `..`
    /// or starts with `.` or `-`, and the name neither starts nor ends with `/`.
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= TimeZoneLimits.maximumZoneNameBytes else { return false }
        for component in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard let first = component.first, first != UInt8(ascii: "."), first != UInt8(ascii: "-") else { return false }
            for byte in component {
                let allowed =
                    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "+")
                guard allowed else { return false }
            }
        }
        return true
    }
}
