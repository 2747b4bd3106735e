import TestRequirements
import Testing

@testable import CalDAV

/// The same life of one resource against two real CalDAV servers on 127.0.0.1: create, create
/// again, read, replace, replace with a stale tag, delete.
@Suite("Create, read, replace and delete on real CalDAV servers")
struct CalDAVClientTests {
    @Test("Radicale", .enabled(if: Requirement.met(RadicaleServer.isInstalled), "radicale is not installed (apt-get install radicale)"))
    func radicale() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let server = try RadicaleServer(in: directory)
        defer { server.process.kill() }
        let netrc = try directory.write("netrc", "machine 127.0.0.1 login \(RadicaleServer.user) password \(RadicaleServer.password)\n")
        let client = try CalDAVClient(collection: server.collection(), settings: CalDAVSettings(netrcFile: netrc))
        try Self.lifecycle(client, log: server.process)
    }

    @Test("Xandikos", .enabled(if: Requirement.met(XandikosServer.isInstalled), "xandikos is not installed (apt-get install xandikos)"))
    func xandikos() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let server = try XandikosServer(in: directory)
        defer { server.process.kill() }
        let netrc = try directory.write("netrc", "machine example.invalid login nobody password none\n")
        let client = try CalDAVClient(collection: server.collection(), settings: CalDAVSettings(netrcFile: netrc))
        try Self.lifecycle(client, log: server.process)
    }

    static func lifecycle(_ client: CalDAVClient, log: ServerProcess) throws {
        // A UID with "%" and "@": the name must survive encoding both ways.
        let uid = "trip-1%2@reservoir"
        let name = CalDAVResourceName(uid: uid)

        let created = client.put(resource: name, body: calendarObject(uid: uid, summary: "First"), condition: .create)
        #expect(created.answer?.status == 201, "\(created) \(log.output)")
        let firstTag = try #require(created.answer?.etag, "no ETag on create: \(created)")
        #expect(created.outcome == .succeeded(etag: firstTag))

        let again = client.put(resource: name, body: calendarObject(uid: uid, summary: "Again"), condition: .create)
        #expect(again.outcome == .preconditionFailed, "\(again)")

        let read = client.get(resource: name)
        #expect(read.answer?.status == 200)
        #expect(read.answer?.etag == firstTag)
        #expect(read.answer?.text.contains("SUMMARY:First") == true)
        #expect(read.answer?.text.contains("UID:\(uid)") == true)

        let replaced = client.put(resource: name, body: calendarObject(uid: uid, summary: "Second"), condition: .replace(etag: firstTag))
        #expect([201, 204].contains(replaced.answer?.status ?? 0), "\(replaced)")
        let secondTag = try #require(replaced.answer?.etag, "no ETag on replace: \(replaced)")
        #expect(secondTag != firstTag)

        let stale = client.put(resource: name, body: calendarObject(uid: uid, summary: "Stale"), condition: .replace(etag: firstTag))
        #expect(stale.outcome == .preconditionFailed, "\(stale)")
        #expect(!stale.outcome.isTransient)

        let current = client.get(resource: name)
        #expect(current.answer?.text.contains("SUMMARY:Second") == true)
        #expect(current.answer?.etag == secondTag)

        let staleDelete = client.delete(resource: name, etag: firstTag)
        #expect(staleDelete.outcome == .preconditionFailed, "\(staleDelete)")

        let deleted = client.delete(resource: name, etag: secondTag)
        #expect([200, 204].contains(deleted.answer?.status ?? 0), "\(deleted)")
        #expect(client.get(resource: name).outcome == .notFound)
        #expect(client.delete(resource: name, etag: nil).outcome == .notFound)
    }
}
