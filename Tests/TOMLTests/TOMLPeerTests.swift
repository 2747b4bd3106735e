import Foundation
import TOML
import TestRequirements
import Testing

/// Python's `tomllib` (3.11, a TOML 1.0.0 reader) as a peer: on the same documents both give the
/// same values, and both refuse the invalid ones. Skipped without python3 or tomllib (failed under
/// `CI=true`).
@Suite("TOMLReader against Python's tomllib")
struct TOMLPeerTests {
    static let valid: [String] = [
        "store = \"sqlite:/var/lib/reservoir/events.sqlite3\"\nallow-domain = [\"a.example\", \".b.example\"]\ntimeout = 5\ninclude-past = true\n",
        "# comment\n\n  key = 'literal \\ string'  # trailing\n",
        "a.b.c = 1\na.b.d = \"x\"\na.e = [1, [2, 3], {x = 1}]\n",
        "[server]\nname = \"mx\"\n[server.tls]\nport = 0x1F_90\n[[peer]]\nname = \"a\"\n[[peer]]\nname = \"b\"\n[peer.sub]\nk = 0o17\n",
        "s = \"\"\"\nline one\\\n   continued \\t tab\nsecond \"quoted\" \\u00e9 \\U0001F600\"\"\"\n",
        "l = '''\n  raw \\n ''quotes'' '''\n",
        "f = [1.5, -0.0, 1e10, 5e-3, 6.626e-34, inf, -inf, 224_617.445_991_228, 1E06, +3.0e+2]\n",
        "i = [0, +1, -1, 1_000_000, 9223372036854775807, -9223372036854775808, 0b1010, 0xdead_BEEF]\n",
        "\"quoted key\" = 1\n'lit.key' = 2\n\"\" = 3\nsite.\"google.com\" = true\n",
        "arr = [\n  1, # one\n  2,\n  # between\n  3,\n]\nempty = []\nt = {}\n",
        "[a.b.c]\nx = 1\n[a]\ny = 2\n[a.b]\nz = 3\n",
        "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true\n",
        "key = \"\"\"\"\"two quotes at the end\"\"\"\"\"\n",
        "bools = [true, false]\nmixed = [1, \"a\", 2.5, [true]]\n",
        "x = 1\r\ny = \"crlf\"\r\n",
    ]

    /// Beside these, TOML 1.0.0 "Integer" lets a reader refuse what it cannot hold: this one
    /// refuses integers past 64 bits (`integer-out-of-range`), which tomllib keeps as Python
    /// integers.
    static let invalid: [String] = [
        "a = 1\na = 2\n", "[t]\n[t]\n", "a = {x = 1}\na.y = 2\n", "a = [1,,2]\n", "a = 1 b = 2\n", "a = \"\\z\"\n",
        "a = 01\n", "a = 1__0\n", "a = 0x\n", "a = +0b1\n", "a = 1.\n", "a = .1\n", "a = 1e\n",
        "a = \"unclosed\n", "a = '''x\n", "a = { x = 1, }\n", "a = { x = 1\n}\n", "[a]\nb = 1\n[a.b]\n", "[a.b]\n[a]\nb.c = 1\n[a.b]\n",
        "x = [1]\n[[x]]\n", "[[x]]\n[x]\n", "a = 2024-02-30\n", "a = 25:00:00\n", "a\n", "= 1\n", "a = \"\u{1}\"\n", "a = 1 # \u{7F}\n",
        "[a]]\n", "a = \"\"\"x\"\"\"\"\"\"\n", "a.b = 1\na = 2\n", "a = 1\na.b = 2\n", "[x.y]\n[[x]]\n", "k = nan1\n", "k = True\n",
    ]

    /// One line per document: the value as a canonical string, or "error".
    static let script = """
        import sys, tomllib, struct
        def c(v):
            if isinstance(v, bool): return 'b:' + str(v).lower()
            if isinstance(v, int): return 'i:' + str(v)
            if isinstance(v, float):
                return 'f:nan' if v != v else 'f:' + str(struct.unpack('<q', struct.pack('<d', v))[0])
            if isinstance(v, str): return 's:' + v.encode().hex()
            if isinstance(v, list): return '[' + ','.join(c(x) for x in v) + ']'
            if isinstance(v, dict): return '{' + ','.join(k.encode().hex() + '=' + c(v[k]) for k in sorted(v)) + '}'
            return 'd'
        for path in sys.argv[1:]:
            try:
                with open(path, 'rb') as f: print(c(tomllib.load(f)))
            except tomllib.TOMLDecodeError:
                print('error')
        """

    static func canonical(_ value: TOMLValue) -> String {
        switch value {
        case .boolean(let b): "b:" + (b ? "true" : "false")
        case .integer(let n): "i:" + String(n)
        case .float(let x): x.isNaN ? "f:nan" : "f:" + String(Int64(bitPattern: x.bitPattern))
        case .string(let s): "s:" + hex(s)
        case .array(let elements): "[" + elements.map { canonical($0.value) }.joined(separator: ",") + "]"
        case .table(let table): canonical(table)
        case .dateTime: "d"
        }
    }

    static func canonical(_ table: TOMLTable) -> String {
        let keys = table.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        return "{" + keys.map { hex($0) + "=" + canonical(table[$0]!.value) }.joined(separator: ",") + "}"
    }

    static func hex(_ s: String) -> String { s.utf8.map { String(format: "%02x", $0) }.joined() }

    static let python3 = "/usr/bin/python3"

    /// Whether `/usr/bin/python3` can import `tomllib` (Python 3.11 and later).
    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python3) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python3)
        process.arguments = ["-c", "import tomllib"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    static func python(_ documents: [String]) throws -> [String]? {
        guard FileManager.default.isExecutableFile(atPath: python3) else { return nil }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("toml-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var paths: [String] = []
        for (i, text) in documents.enumerated() {
            let url = dir.appendingPathComponent("\(i).toml")
            try Data(text.utf8).write(to: url)
            paths.append(url.path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python3)
        process.arguments = ["-c", script] + paths
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test(
        "valid documents: the same values as tomllib",
        .enabled(if: Requirement.met(available), "python3 cannot import tomllib (Python 3.11 or later)"))
    func sameValues() throws {
        let theirs = try #require(try Self.python(Self.valid), "python3 could not read the documents with tomllib")
        #expect(theirs.count == Self.valid.count)
        for (document, their) in zip(Self.valid, theirs) {
            let ours: String
            switch TOMLReader.read(document) {
            case .success(let table): ours = Self.canonical(table)
            case .failure(let error): ours = "error: \(error)"
            }
            #expect(ours == their, "\(document)")
        }
    }

    @Test(
        "invalid documents: both refuse them",
        .enabled(if: Requirement.met(available), "python3 cannot import tomllib (Python 3.11 or later)"))
    func bothRefuse() throws {
        let theirs = try #require(try Self.python(Self.invalid), "python3 could not read the documents with tomllib")
        for (document, their) in zip(Self.invalid, theirs) {
            #expect(their == "error", "tomllib accepts \(document)")
            if case .success(let table) = TOMLReader.read(document) { Issue.record("accepted \(document): \(Self.canonical(table))") }
        }
    }
}
