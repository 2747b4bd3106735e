import Foundation
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// The attack corpus's line-separator cases (those with `exportUIDs`) through every way an
    /// event leaves the store: `events --ics`, a vdir object (`sync`), the feed and the page of
    /// `reservoir serve`, and the object pushed to a CalDAV server (Radicale), each read by the
    /// readers that end lines elsewhere than at CRLF: Python's `str.splitlines()`, vdirsyncer's
    /// `split_collection` (its `http` and `singlefile` storages) and python3-icalendar. A
    /// trusted title, guest name or street holding a line break must not make a second event.
    @Suite("line breaks in trusted text never split an exported object", .serialized)
    struct LineBreakExportTests {
        static let python = "/usr/bin/python3"
        static let folder = ReservoirBinary.packageRoot.appendingPathComponent("Tests/PipelineTests/Attacks")

        struct Expectation: Decodable {
            let exportUIDs: [String]?
        }

        static func cases() -> [String] {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted().filter { name in
                let data = try? Data(contentsOf: folder.appendingPathComponent(name + ".json"))
                return (data.flatMap { try? JSONDecoder().decode(Expectation.self, from: $0) })?.exportUIDs != nil
            }
        }

        static var hasReaders: Bool {
            guard let r = try? ChildProcess.capture([python, "-c", "import icalendar, vdirsyncer.vobject"]) else { return false }
            return r.status == 0
        }

        /// For each document (NUL-separated on stdin): the lines `str.splitlines()` finds, the
        /// CRLFs, the VEVENT UIDs python3-icalendar reads, and those of the items vdirsyncer's
        /// `split_collection` makes (each item parsed again by python3-icalendar), as JSON.
        static let readers = """
            import sys, json, icalendar
            from vdirsyncer.vobject import split_collection
            rows = []
            for text in sys.stdin.buffer.read().decode('utf-8').split('\\0'):
                uids = [str(e.get('UID')) for e in icalendar.Calendar.from_ical(text).walk('VEVENT')]
                items = list(split_collection(text))
                item_uids = [str(e.get('UID')) for item in items for e in icalendar.Calendar.from_ical(item).walk('VEVENT')]
                rows.append({'splitlines': len(text.splitlines()), 'crlf': text.count('\\r\\n'), 'uids': uids,
                             'items': len(items), 'itemUIDs': item_uids})
            print(json.dumps(rows))
            """

        struct Reading: Decodable, Equatable {
            let splitlines: Int
            let crlf: Int
            let uids: [String]
            let items: Int
            let itemUIDs: [String]
        }

        static func read(_ documents: [String]) throws -> [Reading] {
            let r = try ReservoirBinary.run(
                ["-c", readers], stdin: Data(documents.joined(separator: "\0").utf8), executable: URL(fileURLWithPath: python))
            #expect(r.status == 0, "\(r.stderr)")
            return try JSONDecoder().decode([Reading].self, from: r.stdout)
        }

        /// Each document splits only at its CRLFs and holds exactly the expected events, for
        /// python3-icalendar and for vdirsyncer.
        static func check(_ documents: [String], uids: [String], _ what: String) throws {
            let readings = try read(documents)
            #expect(readings.count == documents.count, "\(what)")
            for (reading, document) in zip(readings, documents) {
                #expect(reading.splitlines == reading.crlf, "\(what): str.splitlines() finds \(reading.splitlines) lines, CRLF \(reading.crlf)")
                #expect(reading.uids == uids, "\(what): python3-icalendar reads \(reading.uids)")
                #expect(reading.items == uids.count && reading.itemUIDs == uids, "\(what): vdirsyncer splits into \(reading.itemUIDs)")
                // The injected text is there, as the value of a property, never as a line of its own.
                let uidLines = document.components(separatedBy: "\r\n").filter { $0.hasPrefix("UID:") }
                #expect(uidLines == uids.map { "UID:" + $0 }, "\(what): \(uidLines)")
            }
        }

        /// The message ingested into a new store, whose path this returns.
        static func store(_ name: String, _ tmp: TemporaryDirectory) throws -> String {
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let r = try ReservoirBinary.run([
                "ingest", folder.appendingPathComponent(name + ".eml").path, "--keys", ReservoirBinary.keys,
                "--allow-domain", "epicsteak.example", "--store", store, "--now", ReservoirBinary.now,
            ])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            return store
        }

        static func uids(_ name: String) throws -> [String] {
            let data = try Data(contentsOf: folder.appendingPathComponent(name + ".json"))
            return try JSONDecoder().decode(Expectation.self, from: data).exportUIDs ?? []
        }

        @Test(
            "events --ics, the vdir, the feed and the page: one event each, split only at CRLF",
            .enabled(if: Requirement.met(hasReaders && ServeCLITests.hasCurl), "python3-icalendar, vdirsyncer and curl are needed"),
            arguments: cases())
        func exports(_ name: String) throws {
            let uids = try Self.uids(name)
            #expect(!uids.isEmpty)
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.store(name, tmp)

            let ics = try ReservoirBinary.run(["events", "--ics", "--store", store, "--now", ReservoirBinary.now])
            #expect(ics.status == 0, "\(ics.stderr)")
            try Self.check([ics.text], uids: uids, "\(name): events --ics")

            let vdir = tmp.path + "/calendar"
            let sync = try ReservoirBinary.run(["sync", "--store", store, "--calendar", "vdir:" + vdir, "--now", ReservoirBinary.now])
            #expect(sync.status == 0, "\(sync.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: vdir).filter { $0.hasSuffix(".ics") }.sorted()
            #expect(files.count == uids.count, "\(files)")
            let objects = try files.map { try String(contentsOfFile: vdir + "/" + $0, encoding: .utf8) }
            for (object, uid) in zip(objects, uids) { try Self.check([object], uids: [uid], "\(name): vdir object") }

            let server = try ServeCLITests.Server(["--store", store], tmp: tmp)
            defer { server.stop() }
            let feed = try ServeCLITests.curl(server.base + "/calendar.ics", tmp: tmp)
            #expect(feed.status == 200)
            try Self.check([feed.text], uids: uids, "\(name): feed")
            let page = try ServeCLITests.curl(server.base + "/", tmp: tmp)
            #expect(page.status == 200 && page.text.contains("EPIC Steak"), "\(page.text.prefix(300))")
            let separators: [Unicode.Scalar] = ["\r", "\u{0B}", "\u{0C}", "\u{1C}", "\u{1D}", "\u{1E}", "\u{85}", "\u{2028}", "\u{2029}"]
            #expect(!page.text.unicodeScalars.contains { separators.contains($0) }, "\(name): a line break other than LF in the page")
        }

        @Test(
            "the object pushed to CalDAV, as Radicale stores and serves it: one event, split only at CRLF",
            .enabled(
                if: Requirement.met(hasReaders && CalDAVDeliveryTests.hasRadicale && ServeCLITests.hasCurl),
                "radicale, python3-icalendar, vdirsyncer and curl are needed"),
            arguments: cases())
        func pushed(_ name: String) throws {
            let uids = try Self.uids(name)
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.store(name, tmp)
            let server = try RadicaleServer()
            defer { server.stop() }
            let sync = try ReservoirBinary.run([
                "sync", "--store", store, "--calendar", server.url, "--netrc", server.netrc, "--now", ReservoirBinary.now,
            ])
            #expect(sync.status == 0, "\(sync.stderr)")
            // What Radicale stored of each PUT, and the collection as a subscriber GETs it.
            let folder = server.tmp.path + "/collections/collection-root/jane/reservations"
            let stored = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ics") }.sorted()
            #expect(stored.count == uids.count, "\(stored)")
            for file in stored {
                try Self.check([try String(contentsOfFile: folder + "/" + file, encoding: .utf8)], uids: uids, "\(name): stored by Radicale")
            }
            let collection = try ServeCLITests.curl(server.url, ["-u", "jane:s3cret"], tmp: tmp)
            #expect(collection.status == 200)
            try Self.check([collection.text], uids: uids, "\(name): the collection from Radicale")
        }
    }
}
