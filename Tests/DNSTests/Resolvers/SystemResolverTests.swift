import DNS
import Foundation
import TestRequirements
import Testing

/// Runs `dnsmasq` on loopback as an authoritative TXT source and queries it through
/// libresolv. Skipped when dnsmasq is not installed.
@Suite(.serialized) struct SystemResolverTests {
    static let dnsmasqPath = ["/usr/sbin/dnsmasq", "/usr/bin/dnsmasq"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test func rejectsMalformedServers() {
        #expect(SystemResolver(server: "not-an-address", timeoutSeconds: 1) == nil)
        #expect(SystemResolver(server: "127.0.0.1:0", timeoutSeconds: 1) == nil)
        #expect(SystemResolver(server: "127.0.0.1:99999", timeoutSeconds: 1) == nil)
        #expect(SystemResolver(server: "127.0.0.1:5353", timeoutSeconds: 1) != nil)
    }

    /// A UDP port nobody listens on.
    static func freePort() -> UInt16? {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : nil
    }

    @Test(.enabled(if: Requirement.met(dnsmasqPath != nil), "dnsmasq is not installed (install dnsmasq-base); the live resolver test needs it"))
    func queriesARealServer() throws {
        let dnsmasq = try #require(Self.dnsmasqPath, "dnsmasq is not installed (install dnsmasq-base)")
        let port = try #require(Self.freePort(), "no free loopback port")
        let longA = String(repeating: "A", count: 250)
        let longB = String(repeating: "B", count: 250)
        let longC = String(repeating: "C", count: 120)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dnsmasq)
        process.arguments = [
            "--port=\(port)", "--listen-address=127.0.0.1", "--bind-interfaces", "--no-daemon",
            "--no-resolv", "--no-hosts", "--conf-file=/dev/null", "--pid-file=",
            "--txt-record=sel._domainkey.example.com,v=DKIM1; k=ed25519; p=abc",
            "--txt-record=long._domainkey.example.com,\(longA),\(longB),\(longC)",
            "--txt-record=two.example.com,first",
            "--txt-record=two.example.com,second",
            "--address=/a-only.example.com/192.0.2.1",
            // Authoritative for example.com, so unknown names are NXDOMAIN rather than REFUSED.
            "--local=/example.com/",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        let resolver = try #require(SystemResolver(server: "127.0.0.1:\(port)", timeoutSeconds: 1))
        // dnsmasq needs a moment to bind.
        var first = resolver.lookupTXT("sel._domainkey.example.com")
        for _ in 0..<20 where first != .found(["v=DKIM1; k=ed25519; p=abc"]) {
            usleep(100_000)
            first = resolver.lookupTXT("sel._domainkey.example.com")
        }
        #expect(first == .found(["v=DKIM1; k=ed25519; p=abc"]))
        #expect(resolver.lookupTXT("long._domainkey.example.com") == .found([longA + longB + longC]))
        let two = resolver.lookupTXT("two.example.com")
        if case .found(let records) = two {
            #expect(records.sorted() == ["first", "second"])
        } else {
            Issue.record("expected two records, got \(two)")
        }
        #expect(resolver.lookupTXT("absent._domainkey.example.com") == .notFound)
    }

    @Test func silentServerIsATemporaryFailure() throws {
        let port = try #require(Self.freePort(), "no free loopback port")
        let resolver = try #require(SystemResolver(server: "127.0.0.1:\(port)", timeoutSeconds: 1))
        let result = resolver.lookupTXT("sel._domainkey.example.com")
        guard case .temporaryFailure = result else {
            Issue.record("expected a temporary failure, got \(result)")
            return
        }
    }
}
