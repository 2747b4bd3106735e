import CurlTransport
import Glibc
import TestRequirements
import Testing

@testable import CalDAV

/// Credentials come from a netrc file of mode 0600 or stricter, and nowhere else.
@Suite("Credentials from netrc files")
struct CalDAVAuthenticationTests {
    static let body = calendarObject(uid: "auth-1@reservoir", summary: "Dinner")

    @Test(
        "Radicale answers 401 without credentials for its host and with a wrong password, stores with the right one",
        .enabled(if: Requirement.met(RadicaleServer.isInstalled), "radicale is not installed (apt-get install radicale)"))
    func radicale() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let server = try RadicaleServer(in: directory)
        defer { server.process.kill() }
        let name = CalDAVResourceName(uid: "auth-1@reservoir")

        let otherHost = try directory.write("other-host", "machine example.invalid login jane password \(RadicaleServer.password)\n")
        let anonymous = try CalDAVClient(collection: server.collection(), settings: CalDAVSettings(netrcFile: otherHost))
        let refused = anonymous.put(resource: name, body: Self.body, condition: .create)
        #expect(refused.outcome == .unauthorized, "\(refused)")
        #expect(refused.answer?.status == 401)
        #expect(!refused.outcome.isTransient)

        let wrong = try directory.write("wrong", "machine 127.0.0.1\n  login jane\n  password not-the-password\n")
        let mistaken = try CalDAVClient(collection: server.collection(), settings: CalDAVSettings(netrcFile: wrong))
        #expect(mistaken.put(resource: name, body: Self.body, condition: .create).outcome == .unauthorized)

        // netrc's `default` entry serves every host.
        let right = try directory.write(
            "right", "machine example.invalid login x password y\ndefault login jane password \(RadicaleServer.password)\n")
        let client = try CalDAVClient(collection: server.collection(), settings: CalDAVSettings(netrcFile: right))
        let stored = client.put(resource: name, body: Self.body, condition: .create)
        #expect(stored.answer?.status == 201, "\(stored)")
        #expect(client.get(resource: name).answer?.text.contains("SUMMARY:Dinner") == true)
    }

    @Test(
        "several entries for one host: the login asked for takes its own entry; without one, or with no entry of it, the host's first",
        .enabled(if: Requirement.met(RadicaleServer.isInstalled), "radicale is not installed (apt-get install radicale)"))
    func loginOfSeveral() throws {
        try #require(RadicaleServer.isInstalled, "radicale is not installed (apt-get install radicale)")
        let directory = try TestDirectory()
        defer { directory.remove() }
        let server = try RadicaleServer(in: directory)
        defer { server.process.kill() }
        let name = CalDAVResourceName(uid: "auth-2@reservoir")
        // Joe's entry first: curl alone would log in as Joe, whom Radicale does not know.
        let netrc = try directory.write(
            "several",
            "machine 127.0.0.1 login joe password joes\nmachine 127.0.0.1 login \"jane\" password \"\(RadicaleServer.password)\"\n")
        let first = try CalDAVClient(collection: server.collection(), settings: CalDAVSettings(netrcFile: netrc))
        #expect(first.put(resource: name, body: Self.body, condition: .create).outcome == .unauthorized)
        let unknown = try CalDAVClient(collection: server.collection(), settings: CalDAVSettings(netrcFile: netrc, login: "ann"))
        #expect(unknown.put(resource: name, body: Self.body, condition: .create).outcome == .unauthorized)
        let jane = try CalDAVClient(collection: server.collection(), settings: CalDAVSettings(netrcFile: netrc, login: "jane"))
        #expect(jane.put(resource: name, body: Self.body, condition: .create).answer?.status == 201)
        // A login in the URL names the entry, before the account's.
        let named = try CalDAVCollection(url: "http://jane@127.0.0.1:\(server.port)/jane/trips/")
        let byURL = try CalDAVClient(collection: named, settings: CalDAVSettings(netrcFile: netrc, login: "joe"))
        #expect(byURL.get(resource: name).answer?.status == 200)
        let other = try CalDAVCollection(url: "http://ann@127.0.0.1:\(server.port)/jane/trips/")
        let unlisted = try CalDAVClient(collection: other, settings: CalDAVSettings(netrcFile: netrc, login: "jane"))
        #expect(unlisted.get(resource: name).outcome == .unauthorized, "the URL's login stays its own, with no password")
        #expect(CurlNetrc.credentials(in: netrc, host: "127.0.0.1", login: "jane")?.password == RadicaleServer.password)
        #expect(CurlNetrc.credentials(in: netrc, host: "other.example", login: "jane") == nil)
        #expect(try CalDAVCollection(url: "https://[::1]:8443/cal/").host == "::1")
        #expect(try CalDAVCollection(url: "https://Dav.Example:8443/cal/").host == "Dav.Example")
    }

    @Test("a netrc file others may read is refused before any request, naming the file and its mode", arguments: [0o644, 0o640, 0o604, 0o620])
    func tooOpen(mode: Int) throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let netrc = try directory.write("netrc", "default login jane password secret\n", mode: mode_t(mode))
        let collection = try CalDAVCollection(url: "http://127.0.0.1:9/cal/")
        do {
            _ = try CalDAVClient(collection: collection, settings: CalDAVSettings(netrcFile: netrc))
            Issue.record("a netrc file of mode \(String(mode, radix: 8)) was accepted")
        } catch {
            #expect(error.code == .netrcTooOpen)
            #expect(error.detail.contains(netrc))
            #expect(error.detail.contains("0" + String(mode, radix: 8)))
        }
    }

    @Test("modes 0600 and 0400 are accepted", arguments: [0o600, 0o400])
    func strict(mode: Int) throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let netrc = try directory.write("netrc", "default login jane password secret\n", mode: mode_t(mode))
        let client = try CalDAVClient(collection: CalDAVCollection(url: "http://127.0.0.1:9/cal/"), settings: CalDAVSettings(netrcFile: netrc))
        #expect(client.netrcFile == netrc)
    }

    @Test("a netrc file that is named but missing is an error, not silence")
    func missing() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        #expect(throws: CalDAVError(.netrcUnreadable, "")) {
            try CalDAVClient(
                collection: CalDAVCollection(url: "http://127.0.0.1:9/cal/"), settings: CalDAVSettings(netrcFile: directory.path + "/absent"))
        }
    }

    @Test("a time-out that is not positive is refused", arguments: [0, -1])
    func timeout(milliseconds: Int) throws {
        #expect(throws: CalDAVError(.invalidSettings, "")) {
            try CalDAVClient(
                collection: CalDAVCollection(url: "http://127.0.0.1:9/cal/"), settings: CalDAVSettings(timeoutMilliseconds: milliseconds))
        }
    }
}
