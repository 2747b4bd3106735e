import ReservoirBase
import Testing

@Suite("URLs shown without their passwords")
struct URLTextTests {
    @Test(
        "the password of userinfo and password= parameters are elided; the rest is kept",
        arguments: [
            ("https://jane:s3cret@cal.example/dav/", "https://jane:***@cal.example/dav/"),
            ("postgres://reservoir:pw@db.example:5432/events", "postgres://reservoir:***@db.example:5432/events"),
            ("postgres://db.example/events?user=r&password=pw&sslmode=require", "postgres://db.example/events?user=r&password=***&sslmode=require"),
            ("postgresql://u:p:q@h/d?password=x", "postgresql://u:***@h/d?password=***"),
            ("jane:s3cret@cal.example/dav", "jane:***@cal.example/dav"),
            ("https://jane@cal.example/", "https://jane@cal.example/"),
            ("https://cal.example/a:b@c/", "https://cal.example/a:b@c/"),
            ("vdir:/home/jane/cal", "vdir:/home/jane/cal"),
            ("sqlite:/var/lib/reservoir/events.sqlite3", "sqlite:/var/lib/reservoir/events.sqlite3"),
            ("https://jane:@cal.example/", "https://jane:@cal.example/"),
            ("x?mypassword=keep", "x?mypassword=keep"),
        ])
    func elide(text: String, shown: String) {
        #expect(URLText.withoutCredentials(text) == shown)
    }
}
