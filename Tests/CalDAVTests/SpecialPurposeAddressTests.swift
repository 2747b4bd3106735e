import Glibc
import Testing

@testable import CalDAV

@Suite("Special-purpose addresses: never a page's unless its host is allowed")
struct SpecialPurposeAddressTests {
    static func ipv4(_ text: String) -> UInt32 {
        var address = in_addr()
        _ = inet_pton(AF_INET, text, &address)
        return UInt32(bigEndian: address.s_addr)
    }

    static func ipv6(_ text: String) -> [UInt8] {
        var address = in6_addr()
        _ = inet_pton(AF_INET6, text, &address)
        return withUnsafeBytes(of: address) { Array($0) }
    }

    @Test(
        "IPv4: each RFC 6890 block at its edges, beside the public addresses next to it",
        arguments: [
            ("0.0.0.0", true), ("0.255.255.255", true), ("1.0.0.0", false),
            ("10.0.0.1", true), ("11.0.0.0", false), ("9.255.255.255", false),
            ("100.64.0.1", true), ("100.127.255.255", true), ("100.128.0.0", false), ("100.63.255.255", false),
            ("127.0.0.1", true), ("127.255.255.254", true), ("128.0.0.0", false),
            ("169.254.169.254", true), ("169.255.0.0", false),
            ("172.16.0.1", true), ("172.31.255.255", true), ("172.32.0.0", false), ("172.15.255.255", false),
            ("192.0.0.8", true), ("192.0.2.1", true), ("192.0.1.1", false), ("192.0.3.1", false),
            ("192.88.99.1", true), ("192.168.1.1", true), ("192.169.0.0", false),
            ("198.18.0.1", true), ("198.19.255.255", true), ("198.20.0.0", false), ("198.17.255.255", false),
            ("198.51.100.7", true), ("203.0.113.9", true), ("203.0.114.0", false),
            ("224.0.0.1", true), ("239.255.255.255", true), ("240.0.0.1", true), ("255.255.255.255", true),
            ("8.8.8.8", false), ("93.184.215.14", false), ("223.255.255.255", false),
        ])
    func ipv4(address: String, special: Bool) {
        #expect(SpecialPurposeAddress.isSpecial(ipv4: Self.ipv4(address)) == special, "\(address)")
    }

    @Test(
        "IPv6: loopback, mapped and NAT64 by the IPv4 inside, local, documentation and transition blocks; global unicast passes",
        arguments: [
            ("::", true), ("::1", true), ("::127.0.0.1", true),
            ("::ffff:127.0.0.1", true), ("::ffff:10.1.2.3", true), ("::ffff:8.8.8.8", false),
            ("64:ff9b::7f00:1", true), ("64:ff9b::a9fe:a9fe", true), ("64:ff9b::808:808", false), ("64:ff9b:1::1", true),
            ("::ffff:0:808:808", true), ("100::1", true), ("100:0:0:1::1", false),
            ("2001::1", true), ("2001:1ff::1", true), ("2001:200::1", false), ("2001:db8::1", true), ("2001:db9::1", false),
            ("2002:7f00:1::1", true), ("3fff::1", true), ("3fff:1000::1", false), ("5f00::1", true),
            ("fc00::1", true), ("fd12:3456::1", true), ("fe80::1", true), ("febf::1", true), ("fec0::1", true), ("ff02::1", true),
            ("2a00:1450:4001:81f::200e", false), ("2606:4700::6810:84e5", false), ("fbff::1", false),
        ])
    func ipv6(address: String, special: Bool) {
        #expect(SpecialPurposeAddress.isSpecial(ipv6: Self.ipv6(address)) == special, "\(address)")
    }
}

@Suite("A page's media type: only HTML is read")
struct PageMediaTypeTests {
    @Test(
        "Content-Type values as servers send them",
        arguments: [
            ("text/html", PageMediaType.html), ("text/html; charset=utf-8", .html), ("TEXT/HTML", .html), (" text/html ;charset=x", .html),
            ("application/xhtml+xml", .html), ("Application/XHTML+XML; charset=utf-8", .html),
            ("text/plain", .other("text/plain")), ("text/plain; charset=utf-8", .other("text/plain")),
            ("application/octet-stream", .other("application/octet-stream")), ("text/html-sandboxed", .other("text/html-sandboxed")),
            ("image/svg+xml", .other("image/svg+xml")), ("application/json", .other("application/json")),
            ("text/html/x", .missing), ("text", .missing), ("", .missing), ("/html", .missing), ("text/", .missing),
            ("text /html", .missing), ("text/ht ml", .missing),
        ])
    func contentType(value: String, expected: PageMediaType) {
        #expect(PageMediaType(contentType: value) == expected, "\(value)")
    }

    @Test("no Content-Type at all is not HTML")
    func absent() {
        #expect(PageMediaType(contentType: nil) == .missing)
    }
}
