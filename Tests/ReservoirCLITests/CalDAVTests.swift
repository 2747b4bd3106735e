import Foundation
import TestRequirements
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ProcessSuites {
    /// The exported calendar goes to a real CalDAV server (Debian's Radicale on loopback) and
    /// comes back with every event, its UID, SEQUENCE and STATUS intact.
    @Suite("iCalendar export through a real CalDAV server")
    struct CalDAVTests {
        static let radicale = "/usr/bin/radicale"
        static var hasRadicale: Bool { FileManager.default.isExecutableFile(atPath: radicale) }

        /// One HTTP request, answered with status and body (Basic auth: Radicale takes any password here).
        static func request(_ method: String, _ url: URL, body: Data? = nil) -> (status: Int, body: String) {
            var request = URLRequest(url: url, timeoutInterval: 10)
            request.httpMethod = method
            request.httpBody = body
            request.setValue("Basic " + Data("jane:x".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
            if body != nil { request.setValue("text/calendar; charset=utf-8", forHTTPHeaderField: "Content-Type") }
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var result = (status: 0, body: "")
            URLSession.shared.dataTask(with: request) { data, response, _ in
                result = ((response as? HTTPURLResponse)?.statusCode ?? 0, data.map { String(decoding: $0, as: UTF8.self) } ?? "")
                done.signal()
            }.resume()
            if done.wait(timeout: .now() + 15) == .timedOut { return (0, "no answer in 15 s") }
            return result
        }

        static func lines(_ calendar: String, _ prefix: String) -> [String] {
            calendar.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
                .filter { $0.hasPrefix(prefix) }.sorted()
        }

        @Test(
            "upload the samples' calendar and read it back",
            .enabled(if: Requirement.met(hasRadicale), "radicale is not installed (apt-get install radicale)"))
        func roundTrip() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let port = Int.random(in: 20_000...60_000)
            let config = """
                [server]
                hosts = 127.0.0.1:\(port)
                [auth]
                type = none
                [storage]
                filesystem_folder = \(tmp.path)/collections
                [rights]
                type = owner_only
                """
            try config.write(toFile: tmp.path + "/config", atomically: true, encoding: .utf8)
            let server = Process()
            server.executableURL = URL(fileURLWithPath: Self.radicale)
            server.arguments = ["--config", tmp.path + "/config"]
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
            try server.run()
            // SIGKILL: on SIGTERM Radicale waits for the client's keep-alive connections to close.
            defer {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
            let base = URL(string: "http://127.0.0.1:\(port)/jane/")!
            var up = false
            for _ in 0..<100 where !up {
                up = Self.request("PROPFIND", base).status != 0
                if !up { usleep(100_000) }
            }
            try #require(up, "radicale did not start on port \(port)")

            let store = "sqlite:\(tmp.path)/events.sqlite3"
            _ = try ReservoirBinary.run([
                "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys,
                "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now, "--store", store,
            ])
            let ics = try ReservoirBinary.run(["events", "--ics", "--all", "--store", store, "--now", ReservoirBinary.now]).text
            let calendar = base.appendingPathComponent("trips/")
            #expect(Self.request("MKCALENDAR", calendar).status == 201)
            let put = Self.request("PUT", calendar, body: Data(ics.utf8))
            #expect([201, 204].contains(put.status), "PUT answered \(put.status): \(put.body.prefix(300))")
            let back = Self.request("GET", calendar)
            #expect(back.status == 200)
            #expect(Self.lines(back.body, "UID:") == Self.lines(ics, "UID:"))
            #expect(Self.lines(back.body, "UID:").count == 6)
            #expect(back.body.contains("UID:IWDSCA_1_epicsteak.example@reservoir"))
            #expect(Self.lines(back.body, "SEQUENCE:") == Self.lines(ics, "SEQUENCE:"))
            #expect(Self.lines(back.body, "STATUS:") == Self.lines(ics, "STATUS:"))
            #expect(Self.lines(back.body, "STATUS:").contains("STATUS:CANCELLED"))
        }
    }
}
