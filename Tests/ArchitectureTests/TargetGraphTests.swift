import Foundation
import Testing

/// The target graph as docs/ARCHITECTURE.md states it (written from Package.swift by
/// scripts/target-graph), checked against what each target imports and against the layers
/// the design allows: dependencies point down the pipeline only.
@Suite("The target graph points one way")
struct TargetGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Each target's layer; a target may depend only on targets of lower layers.
    static let layers: [String: Int] = [
        "COpenSSL": 0, "CLibXML2": 0, "CSQLite": 0, "CLibIDN2": 0, "CResolv": 0, "CMalloc": 0, "CLibPQ": 0, "CLibCurl": 0, "CZlib": 0,
        "CMilter": 0, "CPoppler": 0, "CZXing": 0,
        "CLibPQLoader": 1, "CLibCurlLoader": 1, "ReservoirBase": 1, "CDocumentScan": 1, "ServiceLog": 1, "Prometheus": 1,
        "Telemetry": 2, "CurlTransport": 2,
        "Documents": 2, "MIME": 2, "DNS": 2, "JSON": 2, "TimeZones": 2, "TOML": 2, "Zip": 2, "BCBP": 2,
        "Mailbox": 3, "DKIM": 3, "Markup": 3, "WalletPass": 3, "ICalendarReading": 3, "RailTicket": 3,
        "Reservations": 4, "EventStore": 4, "ARC": 4,
        "EventStorePostgres": 5, "ICalendar": 5, "CalDAV": 5, "Trust": 5,
        "Pipeline": 6, "Delivery": 6, "Feed": 6, "IMAP": 6,
        "Output": 7,
        "CommandCore": 8,
        "reservoir": 9, "reservoir-filter": 9, "reservoir-bench": 9, "reservoir-serve": 9, "reservoir-milter": 9, "reservoir-document": 9,
        "ArgumentParser": 8, "Hummingbird": 8, "HTTPTypes": 8,
    ]

    /// Edges the layers would allow but the design forbids: the store keeps events, not
    /// schema.org or mail.
    static let forbidden: [String: Set<String>] = [
        "EventStore": ["MIME", "DKIM", "Markup", "Reservations", "JSON", "Mailbox", "Trust"],
        // ARC validates chains of signatures: it knows no policy, markup or store.
        "ARC": ["Markup", "Reservations", "EventStore", "Mailbox", "Trust", "JSON"],
        "Trust": ["Markup", "Reservations", "EventStore", "Mailbox"],
        // Passes: the archive, the bar code, the signature; no mail, no markup, no store.
        "WalletPass": ["MIME", "DKIM", "Markup", "Reservations", "Mailbox", "Trust", "EventStore"],
        // Rail tickets: the bar code's bytes, the signature, the reservations; no mail, no markup,
        // no trust policy, no store (the pipeline decides what a verified ticket is worth).
        "RailTicket": ["MIME", "DKIM", "Markup", "Reservations", "Mailbox", "Trust", "EventStore", "WalletPass", "Pipeline"],
        // Delivery pushes stored events: it knows the store and iCalendar, not mail or markup.
        "Delivery": ["MIME", "DKIM", "Markup", "Reservations", "JSON", "Mailbox", "Trust", "Pipeline"],
        // The libcurl layer: transfers and their C resources, for CalDAV and IMAP alike; no
        // calendar, no mailbox, no mail, no store.
        "CurlTransport": [
            "CalDAV", "IMAP", "MIME", "DKIM", "Markup", "Reservations", "JSON", "Mailbox", "Trust", "EventStore", "ICalendar", "DNS",
        ],
        // Calendar delivery's transport: HTTP and resources, no mail, no trust, no store.
        "CalDAV": ["MIME", "DKIM", "Markup", "Reservations", "JSON", "Mailbox", "Trust", "EventStore", "ICalendar", "DNS"],
        // IMAP reads bytes from a mailbox: no mail format, no trust, no store.
        // It shares the libcurl layer (CurlTransport) with CalDAV, not CalDAV itself.
        "IMAP": [
            "MIME", "DKIM", "Markup", "Reservations", "JSON", "Mailbox", "Trust", "EventStore", "ICalendar", "DNS", "Pipeline", "Delivery", "CalDAV",
        ],
        // The hook never links the HTTP server, nor the feed, nor the IMAP client.
        "reservoir-filter": ["Hummingbird", "HTTPTypes", "Feed", "CMilter", "IMAP", "Telemetry", "Prometheus"],
        // The metrics registry and its HTTP side are the long-running programs'; the hook and
        // the code it runs never link them.
        "CommandCore": ["CMilter", "Telemetry", "Prometheus"],
        "reservoir": ["Hummingbird", "HTTPTypes", "CMilter"],
        // libmilter and its threads live in the milter's own program; the feed server does not
        // speak mail, and the milter answers only its metrics, without an HTTP framework.
        "reservoir-serve": ["CMilter"],
        "reservoir-milter": ["Hummingbird", "HTTPTypes", "Feed"],
        // The calendar reader: RFC 5545 text to events; no mail, no markup, no trust, no store.
        "ICalendarReading": ["MIME", "DKIM", "Markup", "Reservations", "JSON", "Mailbox", "Trust", "EventStore", "ICalendar", "DNS"],
        // Time zones: files, rules and tables; no mail, no markup, no store.
        "TimeZones": [
            "MIME", "DKIM", "Markup", "Reservations", "JSON", "Mailbox", "Trust", "EventStore", "ICalendar", "DNS", "CalDAV", "ICalendarReading",
        ],
    ]

    /// The document reader's libraries (poppler, cairo, zxing-cpp, libjpeg, giflib).
    static let documentLibraries: Set<String> = ["CPoppler", "CZXing", "CDocumentScan"]

    @Test("poppler and zxing-cpp are reached by reservoir-document alone, never by the hook or the other programs")
    func documentLibrariesStayApart() throws {
        let graph = try Self.documented()
        func closure(_ target: String) -> Set<String> {
            var seen: Set<String> = []
            var stack = [target]
            while let next = stack.popLast() {
                for dependency in graph[next] ?? [] where seen.insert(dependency).inserted { stack.append(dependency) }
            }
            return seen
        }
        #expect(!closure("reservoir-document").isDisjoint(with: Self.documentLibraries), "reservoir-document links them")
        for program in ["reservoir", "reservoir-filter", "reservoir-milter", "reservoir-serve", "Pipeline", "CommandCore", "Documents"] {
            #expect(
                closure(program).isDisjoint(with: Self.documentLibraries),
                "\(program) reaches \(closure(program).intersection(Self.documentLibraries))")
        }
    }

    /// Modules of the system and toolchain, not of the package.
    static let system: Set<String> = ["Glibc", "Foundation", "FoundationEssentials", "Testing", "Dispatch", "Synchronization", "_Concurrency"]

    /// `target → dependencies` from the generated block of docs/ARCHITECTURE.md.
    static func documented() throws -> [String: [String]] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        guard let start = text.range(of: "<!-- target-graph -->"), let end = text.range(of: "<!-- /target-graph -->") else { return [:] }
        var graph: [String: [String]] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("| `") {
            let columns = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard columns.count == 3 else { continue }
            let name = columns[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            graph[name] =
                columns[2] == "—" ? [] : columns[2].components(separatedBy: ", ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
        }
        return graph
    }

    /// The package modules a target's Swift sources import.
    static func imports(of target: String) throws -> Set<String> {
        let folder = root.appendingPathComponent("Sources/" + target)
        guard let files = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var modules = Set<String>()
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[..<index].allSatisfy({ ["public", "package", "internal", "@testable", "@_implementationOnly"].contains($0) })
                else { continue }
                let module = String(words[index + 1])
                if !system.contains(module) { modules.insert(module) }
            }
        }
        return modules
    }

    @Test("the documented graph is the package's, and every target has a layer")
    func documentedGraph() throws {
        let graph = try Self.documented()
        #expect(graph.count >= 20, "run scripts/target-graph")
        for name in graph.keys { #expect(Self.layers[name] != nil, "\(name) has no layer in TargetGraphTests") }
    }

    @Test("every dependency points to a lower layer, and no forbidden edge exists")
    func layering() throws {
        for (target, dependencies) in try Self.documented() {
            guard let layer = Self.layers[target] else { continue }
            for dependency in dependencies {
                #expect((Self.layers[dependency] ?? .max) < layer, "\(target) (layer \(layer)) depends on \(dependency)")
                #expect(!(Self.forbidden[target]?.contains(dependency) ?? false), "\(target) must not depend on \(dependency)")
            }
        }
    }

    @Test("each target imports exactly what it declares (the C libraries and products included)")
    func importsMatchDeclarations() throws {
        for (target, dependencies) in try Self.documented() where !target.hasPrefix("C") || target == "CommandCore" {
            let imported = try Self.imports(of: target)
            let declared = Set(dependencies)
            #expect(imported.subtracting(declared).sorted() == [], "\(target) imports undeclared targets")
            #expect(declared.subtracting(imported).sorted() == [], "\(target) declares targets it never imports")
        }
    }

    /// The programs too: full Foundation would bring ICU's 34 MB data table into the program
    /// that imports it (docs/INSTALL.md); what the packages bring is checked on the built
    /// programs (`ServeCLITests.noFullFoundation`).
    @Test("no target imports Foundation, the programs included (start-up time and size, docs/ARCHITECTURE.md)")
    func noFoundationInTargets() throws {
        for (target, _) in try Self.documented() {
            let folder = Self.root.appendingPathComponent("Sources/" + target)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                #expect(!text.contains("import Foundation"), "\(target)/\(file)")
            }
        }
    }
}
