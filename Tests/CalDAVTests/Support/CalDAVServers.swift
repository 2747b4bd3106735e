import Foundation

@testable import CalDAV

/// Debian's Radicale on 127.0.0.1, with htpasswd users (plain passwords) and the calendar
/// collection /jane/trips/ made on disk; with `tls`, HTTPS with that certificate and key.
struct RadicaleServer {
    static let program = "/usr/bin/radicale"
    static var isInstalled: Bool { ServerProcess.isInstalled(program) }
    static let user = "jane"
    static let password = "s3cret"

    let process: ServerProcess
    let port: Int

    init(in directory: TestDirectory, tls: (certificate: String, key: String)? = nil) throws {
        port = try LoopbackSocket.freePort()
        try directory.write("users", "\(Self.user):\(Self.password)\n")
        try directory.makeDirectory("collections")
        try directory.makeDirectory("collections/collection-root")
        try directory.makeDirectory("collections/collection-root/jane")
        try directory.makeDirectory("collections/collection-root/jane/trips")
        try directory.write("collections/collection-root/jane/trips/.Radicale.props", #"{"tag": "VCALENDAR"}"#)
        var config = """
            [server]
            hosts = 127.0.0.1:\(port)
            [auth]
            type = htpasswd
            htpasswd_filename = \(directory.path)/users
            htpasswd_encryption = plain
            delay = 0
            [storage]
            filesystem_folder = \(directory.path)/collections
            [rights]
            type = owner_only
            [logging]
            level = warning

            """
        if let tls {
            config = config.replacingOccurrences(
                of: "[auth]", with: "ssl = True\ncertificate = \(tls.certificate)\nkey = \(tls.key)\n[auth]")
        }
        try directory.write("config", config)
        process = try ServerProcess([Self.program, "--config", directory.path + "/config"], log: directory.path + "/radicale.log")
        try LoopbackSocket.waitFor(port: port, server: process)
    }

    func collection(scheme: String = "http") throws -> CalDAVCollection {
        try CalDAVCollection(url: "\(scheme)://127.0.0.1:\(port)/jane/trips")
    }
}

/// Debian's Xandikos on 127.0.0.1 with its default calendar, /user/calendars/calendar/ (no
/// authentication).
struct XandikosServer {
    static let program = "/usr/bin/xandikos"
    static var isInstalled: Bool { ServerProcess.isInstalled(program) }

    let process: ServerProcess
    let port: Int

    init(in directory: TestDirectory) throws {
        port = try LoopbackSocket.freePort()
        process = try ServerProcess(
            [Self.program, "--defaults", "-d", directory.path + "/data", "-l", "127.0.0.1", "-p", String(port)],
            log: directory.path + "/xandikos.log")
        try LoopbackSocket.waitFor(port: port, server: process)
    }

    func collection() throws -> CalDAVCollection {
        try CalDAVCollection(url: "http://127.0.0.1:\(port)/user/calendars/calendar/")
    }
}

/// A self-signed certificate for 127.0.0.1 (subjectAltName IP:127.0.0.1), made with openssl(1).
struct SelfSignedCertificate {
    static let program = "/usr/bin/openssl"
    let certificate: String
    let key: String

    init(in directory: TestDirectory) throws {
        certificate = directory.path + "/cert.pem"
        key = directory.path + "/key.pem"
        try ServerProcess.run([
            Self.program, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ])
    }
}

/// An iCalendar object with one event, as the store's export writes them (RFC 5545).
func calendarObject(uid: String, summary: String) -> String {
    [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Reservoir//CalDAV tests//EN", "BEGIN:VEVENT",
        "UID:\(uid)", "DTSTAMP:20250101T000000Z", "DTSTART:20250301T100000Z", "DTEND:20250301T120000Z",
        "SUMMARY:\(summary)", "END:VEVENT", "END:VCALENDAR", "",
    ].joined(separator: "\r\n")
}
