import Testing

@testable import CalDAV

@Suite("Collection URLs: http(s) only, no credentials, a trailing slash")
struct CalDAVCollectionTests {
    @Test(
        "accepted URLs, written with a trailing slash and a lowercase scheme",
        arguments: [
            ("http://127.0.0.1:5232/jane/trips", "http://127.0.0.1:5232/jane/trips/"),
            ("https://dav.example.com/cal/", "https://dav.example.com/cal/"),
            ("HTTPS://dav.example.com", "https://dav.example.com/"),
            ("http://[::1]:8080/a%20b", "http://[::1]:8080/a%20b/"),
        ])
    func accepted(url: String, normalized: String) throws {
        let collection = try CalDAVCollection(url: url)
        #expect(collection.url == normalized)
        #expect(collection.usesTLS == normalized.hasPrefix("https:"))
    }

    @Test("a login alone before the host names the netrc entry to take; it stays in the URL, the host is without it")
    func login() throws {
        let collection = try CalDAVCollection(url: "https://jane%40example.org@Dav.Example.com:8443/cal")
        #expect(collection.login == "jane@example.org")
        #expect(collection.authority == "Dav.Example.com:8443")
        #expect(collection.host == "Dav.Example.com")
        #expect(collection.url == "https://jane%40example.org@Dav.Example.com:8443/cal/")
        #expect(try CalDAVCollection(url: "https://dav.example.com/cal/").login == nil)
    }

    @Test(
        "refused URLs, each with its code",
        arguments: [
            ("ftp://example.com/cal/", CalDAVError.Code.unsupportedScheme),
            ("file:///etc/passwd", .unsupportedScheme),
            ("file://localhost/etc/", .unsupportedScheme),
            ("https://jane:secret@dav.example.com/cal/", .credentialsInURL),
            ("https://:@dav.example.com/cal/", .credentialsInURL),
            ("https://@dav.example.com/cal/", .invalidURL),
            ("https://a@b@dav.example.com/cal/", .invalidURL),
            ("https://jane%0A@dav.example.com/cal/", .invalidURL),
            ("https://jane%@dav.example.com/cal/", .invalidURL),
            ("dav.example.com/cal/", .invalidURL),
            ("https:///cal/", .invalidURL),
            ("https://dav.example.com/cal/?x=1", .invalidURL),
            ("https://dav.example.com/cal/#top", .invalidURL),
            ("https://dav.example.com/my cal/", .invalidURL),
            ("https://dav.example.com/cal/\r\nX: y", .invalidURL),
            ("https://dav.example.com/kalender-ü/", .invalidURL),
            ("", .invalidURL),
        ])
    func refused(url: String, code: CalDAVError.Code) {
        #expect(throws: CalDAVError(code, "")) { try CalDAVCollection(url: url) }
    }

    @Test("a member's URL is the collection's URL and the encoded name")
    func memberURL() throws {
        let collection = try CalDAVCollection(url: "https://dav.example.com/cal")
        #expect(collection.url(of: CalDAVResourceName(uid: "a b")) == "https://dav.example.com/cal/a%20b.ics")
    }
}
