import Foundation
import Testing

/// `scan` of a directory that holds no mail (a mistyped path, `~/Documents`) is refused before
/// anything is read; files named on the command line are read whatever they look like.
@Suite("scan: a directory of no mail is refused")
struct ScanSourceCLITests {
    static let options = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]

    /// A store apart from the scanned folder.
    static func store(_ place: TemporaryDirectory) -> [String] { ["--store", "sqlite:\(place.path)/events.sqlite3"] }

    /// A folder as a person's documents look: notes, front matter, a PDF, a CSV.
    static func documents(in directory: String) throws -> [String] {
        let files = [
            ("notes.txt", "Shopping list\nSubject: milk\n"),
            ("post.md", "---\ntitle: Trip\ndate: 2026-05-01\n---\nText\n"),
            ("report.pdf", "%PDF-1.7\n%\u{e2}\u{e3}\u{cf}\u{d3}\n1 0 obj\n"),
            ("data.csv", "name,date\nTrip,2026-05-01\n"),
        ]
        for (name, text) in files { try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8) }
        return files.map { directory + "/" + $0.0 }.sorted()
    }

    @Test("a directory of documents: exit 66 naming it, no banner, nothing read")
    func documentsRefused() throws {
        let tmp = try TemporaryDirectory()
        let state = try TemporaryDirectory()
        defer {
            tmp.remove()
            state.remove()
        }
        _ = try Self.documents(in: tmp.path)
        let r = try ReservoirBinary.run(["scan", tmp.path] + Self.options + Self.store(state))
        #expect(r.status == 66, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains(tmp.path) && r.stderr.contains("looks like mail"), "\(r.stderr)")
        #expect(r.stdout.isEmpty, "\(r.text)")
        #expect(!FileManager.default.fileExists(atPath: state.path + "/events.sqlite3"), "nothing recorded, no store made")
    }

    @Test("the same files named one by one are read as messages; one message among them makes the directory mail")
    func namedOrMixed() throws {
        let tmp = try TemporaryDirectory()
        let state = try TemporaryDirectory()
        defer {
            tmp.remove()
            state.remove()
        }
        let files = try Self.documents(in: tmp.path)
        let named = try ReservoirBinary.run(["scan", "--json"] + files + Self.options + Self.store(state))
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.text.split(separator: "\n").count == files.count + 1, "a line per file and the summary: \(named.text)")

        try FileManager.default.copyItem(atPath: try ReservoirBinary.sample(1), toPath: tmp.path + "/confirmation.eml")
        let mixed = try ReservoirBinary.run(["scan", "--json", "--rescan", tmp.path] + Self.options + Self.store(state))
        #expect(mixed.status == 0, "\(mixed.stderr)")
        #expect(mixed.text.split(separator: "\n").count == files.count + 2, "\(mixed.text)")
        #expect(mixed.text.contains("IWDSCA"))
    }
}
