import TestRequirements
import Testing

@testable import CalDAV

/// HTTPS to a server with a self-signed certificate: refused against the system's CA store,
/// accepted with the certificate as `caFile`.
@Suite("TLS verification against a self-signed Radicale")
struct CalDAVTLSTests {
    @Test(
        "refused without caFile, accepted with it",
        .enabled(if: Requirement.met(RadicaleServer.isInstalled), "radicale is not installed (apt-get install radicale)"),
        .enabled(if: Requirement.met(ServerProcess.isInstalled(SelfSignedCertificate.program)), "openssl is not installed (apt-get install openssl)"))
    func selfSigned() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let certificate = try SelfSignedCertificate(in: directory)
        let server = try RadicaleServer(in: directory, tls: (certificate.certificate, certificate.key))
        defer { server.process.kill() }
        let netrc = try directory.write("netrc", "machine 127.0.0.1 login \(RadicaleServer.user) password \(RadicaleServer.password)\n")
        let name = CalDAVResourceName(uid: "tls-1@reservoir")
        let body = calendarObject(uid: "tls-1@reservoir", summary: "Hotel")

        let untrusting = try CalDAVClient(collection: server.collection(scheme: "https"), settings: CalDAVSettings(netrcFile: netrc))
        let refused = untrusting.put(resource: name, body: body, condition: .create)
        #expect(refused == .failed(.tls("")), "\(refused)")
        #expect(!refused.outcome.isTransient)

        let trusting = try CalDAVClient(
            collection: server.collection(scheme: "https"), settings: CalDAVSettings(netrcFile: netrc, caFile: certificate.certificate))
        let stored = trusting.put(resource: name, body: body, condition: .create)
        #expect(stored.answer?.status == 201, "\(stored) \(server.process.output)")
        #expect(trusting.get(resource: name).answer?.text.contains("SUMMARY:Hotel") == true)
    }
}
