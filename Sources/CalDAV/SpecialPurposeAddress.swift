/// Addresses a page is never fetched from unless its host is named with
/// `--allow-private-host`: this machine, its networks, and every other block the IANA
/// special-purpose registries mark as not globally reachable (RFC 6890 and its updates),
/// judged on the address libcurl is about to connect to, so that no spelling of a name or a
/// number (`localhost`, `2130706433`, `0177.0.0.1`, `127.1`, `[::ffff:127.0.0.1]`) and no DNS
/// answer reaches them.
public enum SpecialPurposeAddress {
    /// An IPv4 block: the address, the prefix length, and where it is defined.
    struct Block4 {
        let base: UInt32
        let length: Int
        let source: String

        func contains(_ address: UInt32) -> Bool {
            length == 0 || (address ^ base) >> (32 - length) == 0
        }
    }

    /// The IPv4 blocks refused (IANA IPv4 Special-Purpose Address Registry, RFC 6890 §2.2.2).
    static let ipv4: [Block4] = [
        Block4(base: 0x0000_0000, length: 8, source: "RFC 791 §3.2, this network"),
        Block4(base: 0x0A00_0000, length: 8, source: "RFC 1918, private"),
        Block4(base: 0x6440_0000, length: 10, source: "RFC 6598, shared address space"),
        Block4(base: 0x7F00_0000, length: 8, source: "RFC 1122 §3.2.1.3, loopback"),
        Block4(base: 0xA9FE_0000, length: 16, source: "RFC 3927, link-local"),
        Block4(base: 0xAC10_0000, length: 12, source: "RFC 1918, private"),
        Block4(base: 0xC000_0000, length: 24, source: "RFC 6890 §2.2.2, IETF protocol assignments"),
        Block4(base: 0xC000_0200, length: 24, source: "RFC 5737, documentation"),
        Block4(base: 0xC058_6300, length: 24, source: "RFC 7526, 6to4 relay anycast (deprecated)"),
        Block4(base: 0xC0A8_0000, length: 16, source: "RFC 1918, private"),
        Block4(base: 0xC612_0000, length: 15, source: "RFC 2544, benchmarking"),
        Block4(base: 0xC633_6400, length: 24, source: "RFC 5737, documentation"),
        Block4(base: 0xCB00_7100, length: 24, source: "RFC 5737, documentation"),
        Block4(base: 0xE000_0000, length: 4, source: "RFC 5771, multicast"),
        Block4(base: 0xF000_0000, length: 4, source: "RFC 1112 §4, reserved, and 255.255.255.255 limited broadcast (RFC 919 §7)"),
    ]

    /// Whether an IPv4 address (host order) is in a refused block.
    public static func isSpecial(ipv4 address: UInt32) -> Bool {
        ipv4.contains { $0.contains(address) }
    }

    /// Whether an IPv6 address (16 bytes, network order) is refused (IANA IPv6 Special-Purpose
    /// Address Registry, RFC 6890 §2.2.3). An IPv4-mapped address (`::ffff:0:0/96`, RFC 4291
    /// §2.5.5.2) and a NAT64 address of the well-known prefix (`64:ff9b::/96`, RFC 6052 §2.1)
    /// are judged by the IPv4 address they carry: the first is an IPv4 connection, the second
    /// how an IPv6-only network reaches every IPv4 site (RFC 6052 §3.1: the prefix never stands
    /// for a non-global IPv4 address, so one that does is refused too).
    public static func isSpecial(ipv6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return true }
        let embedded = UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15])
        func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        // ::ffff:0:0/96, IPv4-mapped.
        if starts([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) { return isSpecial(ipv4: embedded) }
        // 64:ff9b::/96, the NAT64 well-known prefix.
        if starts([0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]) { return isSpecial(ipv4: embedded) }
        // ::/96: the unspecified address ::/128, loopback ::1/128 (RFC 4291 §2.5.2, §2.5.3) and
        // the deprecated IPv4-compatible addresses (§2.5.5.1).
        if starts([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) { return true }
        // ::ffff:0:0:0/96, IPv4-translated (RFC 2765 §2.1).
        if starts([0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0]) { return true }
        // 64:ff9b:1::/48, NAT64 local use (RFC 8215).
        if starts([0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01]) { return true }
        // 100::/64, discard-only (RFC 6666).
        if starts([0x01, 0x00, 0, 0, 0, 0, 0, 0]) { return true }
        // 2001::/23, IETF protocol assignments (RFC 2928), Teredo 2001::/32 (RFC 4380) among them.
        if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] & 0xFE == 0 { return true }
        // 2001:db8::/32, documentation (RFC 3849).
        if starts([0x20, 0x01, 0x0D, 0xB8]) { return true }
        // 2002::/16, 6to4 (RFC 3056): a relay's IPv4 address inside, deprecated (RFC 7526).
        if starts([0x20, 0x02]) { return true }
        // 3fff::/20, documentation (RFC 9637).
        if bytes[0] == 0x3F && bytes[1] == 0xFF && bytes[2] & 0xF0 == 0 { return true }
        // 5f00::/16, segment routing SIDs (RFC 9602).
        if starts([0x5F, 0x00]) { return true }
        // fc00::/7 unique local (RFC 4193), fe80::/10 link-local (RFC 4291 §2.5.6), fec0::/10
        // site-local (deprecated, RFC 3879), ff00::/8 multicast (RFC 4291 §2.7).
        if bytes[0] & 0xFE == 0xFC || bytes[0] == 0xFE && bytes[1] & 0x80 == 0x80 || bytes[0] == 0xFF { return true }
        return false
    }
}
