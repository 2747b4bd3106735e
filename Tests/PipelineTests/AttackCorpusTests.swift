import DKIM
import DNS
import EventStore
import Foundation
import MIME
import Mailbox
import PipelineTestSupport
import Reservations
import TestRequirements
import Testing
import Trust

@testable import Pipeline

/// The attack corpus (`Attacks/`, written by scripts/make-attacks): genuine confirmations signed
/// by dkimpy, changed as an attacker holding them can change them. Each case says what must be
/// concluded; each attack names the genuine control it was made from.
@Suite("Attack corpus: every attack refused or neutralised, every control trusted")
struct AttackCorpusTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Attacks")

    struct Expectation: Decodable {
        let `class`: Int
        let description: String
        let dkim: String
        let trusted: Bool
        let refusal: String?
        let reservations: [String]
        let forbidden: [String]
        let control: String?
        let me: [String]
        /// `--trust-arc-sealer` for the case (the ARC path); absent: off.
        let arcSealers: [String]?
        /// Refusal codes that must be among the message's refusals besides the first.
        let alsoRefused: [String]?
    }

    static func names() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    static func load(_ name: String) throws -> (RawMessage, Expectation) {
        let json = try Data(contentsOf: folder.appendingPathComponent(name + ".json"))
        let path = folder.appendingPathComponent(name + ".eml").path
        return (try MessageSource.file(path), try JSONDecoder().decode(Expectation.self, from: json))
    }

    static func pipeline(_ expected: Expectation, store: (any EventStore)? = nil) throws -> ReservationPipeline {
        let policy = TrustPolicy(
            allowedDomains: ["epicsteak.example"], publicSuffixes: PublicSuffixList.load(), recipients: expected.me,
            trustedARCSealers: expected.arcSealers ?? [])
        return try Samples.pipeline(store: store, policy: policy)
    }

    @Test("the corpus holds every class, each attack beside an existing control")
    func corpusIsComplete() throws {
        let names = Self.names()
        #expect(names.count >= 25, "scripts/make-attacks writes the corpus")
        let expectations = try names.map { try Self.load($0).1 }
        #expect(Set(expectations.map(\.class)).isSuperset(of: [0, 1, 2, 6, 7, 8]))
        for (name, expected) in zip(names, expectations) {
            if let control = expected.control { #expect(names.contains(control), "\(name): control \(control) missing") }
            if !expected.trusted { #expect(expected.refusal != nil, "\(name): a refused case names its refusal") }
        }
    }

    @Test("verdict, refusal and trusted reservations", arguments: names())
    func verdict(_ name: String) throws {
        let (raw, expected) = try Self.load(name)
        let report = try Self.pipeline(expected).analyze(raw)
        #expect((report.signatures.first?.result ?? .none).rawValue == expected.dkim, "\(name): \(report.signatures.map(\.reason))")
        #expect(report.trust.trusted == expected.trusted, "\(name): \(report.trust.reason)")
        #expect(report.trust.refusal?.code.rawValue == (expected.trusted ? nil : expected.refusal), "\(name): \(report.trust.reason)")
        for code in expected.alsoRefused ?? [] {
            #expect(report.trust.refusals.map(\.code.rawValue).contains(code), "\(name): \(code) not among \(report.trust.reason)")
        }
        // An item may be refused on its own in a trusted message (an invitation's ORGANIZER).
        let trusted = report.trust.trusted ? report.items.filter { $0.refusal == nil }.map(\.reservation.reservationID) : []
        #expect(trusted == expected.reservations, "\(name)")
        for id in expected.forbidden { #expect(!trusted.contains(id), "\(name): \(id) trusted") }
    }

    @Test("nothing forbidden reaches the store", arguments: names())
    func store(_ name: String) throws {
        let (raw, expected) = try Self.load(name)
        let temporary = TemporaryStore()
        defer { temporary.remove() }
        let store = try temporary.open()
        let report = try Self.pipeline(expected, store: store).process(raw)
        let stored = try store.events().map(\.event.key.container)
        for id in expected.forbidden { #expect(!stored.contains(id), "\(name): \(id) stored") }
        #expect(Set(stored) == Set(expected.reservations), "\(name)")
        // Each stored event keeps how it was vouched for: the sealer's word on the ARC path (a
        // DKIM failure the sealer vouches over), the message's own signature otherwise.
        let proof: EventProof =
            switch report.trust.path {
            case .dkim: .signedMail
            case .arc(let sealer, _): .arc(sealer: sealer)
            case .page: .page(domain: report.trust.vouchingDomain ?? "")
            }
        for event in try store.events() { #expect(event.proof == proof, "\(name): \(event.event.key)") }
        if name == "arc-control" { #expect(try store.events().map(\.proof) == [.arc(sealer: "home.example")]) }
    }

    /// dkimpy (Debian python3-dkim) verifies every case: its DKIM verdict must be the corpus's.
    /// It passes the attacks that keep the signature valid, as it should: DKIM vouches for the
    /// signed bytes, and reading only those is Reservoir's part.
    static let dkimpyScript = """
        import sys, os, re, dkim
        zone = open(sys.argv[1]).read()
        def dns(name, timeout=5):
            for line in zone.splitlines():
                if line.startswith(name.decode().rstrip('.') + ' '):
                    return ''.join(re.findall(r'"([^"]*)"', line)).encode()
            return None
        for path in sys.argv[2:]:
            try:
                verdict = 'pass' if dkim.verify(open(path, 'rb').read(), dnsfunc=dns) else 'fail'
            except dkim.DKIMException:
                verdict = 'permerror'
            print(os.path.basename(path)[:-4], verdict)
        """

    /// Where dkimpy differs, each ending in no trust on both sides:
    /// - it refuses a header field with white space before its colon (`Content-Type :`) as a
    ///   malformed message; RFC 5322 §4.5 reads it as obsolete syntax, as Reservoir and Python's
    ///   `email` do: the signature passes, and the second Content-Type refuses trust;
    /// - it fails any signature of a message with two From fields; Reservoir reports the
    ///   signature's own result and refuses trust (RFC 7489 §6.6.1);
    /// - it reads every header field, so the From added after 10,000 fields is the one its
    ///   signature selects and fails; Reservoir reads up to ``Limits/maxHeaderFields`` and
    ///   refuses trust to a message past the limit;
    /// - it refuses a header line opening with a bare CR as a malformed message; Reservoir
    ///   ends the header there, and the signature fails on a body that now starts with it.
    static let dkimpyDiffers = [
        "c1-prepend-content-type-obsolete": "permerror", "c6-prepend-from": "fail",
        "c7-from-after-header-limit": "fail", "bare-cr-malformed-lines": "permerror",
    ]

    static let python = "/usr/bin/python3"

    /// Whether `/usr/bin/python3` can import dkimpy.
    static let dkimpyAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import dkim"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    @Test(
        "dkimpy reaches the same DKIM verdict on every case",
        .enabled(if: Requirement.met(dkimpyAvailable), "/usr/bin/python3 cannot import dkim (apt-get install python3-dkim)"))
    func dkimpyAgrees() throws {
        try #require(Self.dkimpyAvailable, "/usr/bin/python3 cannot import dkim (apt-get install python3-dkim)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = ["-c", Self.dkimpyScript, Samples.keysZone] + Self.names().map { Self.folder.appendingPathComponent($0 + ".eml").path }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "dkimpy's run failed")
        var compared = 0
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 2 else { continue }
            let expected = try Self.load(words[0]).1
            let dkimpy = Self.dkimpyDiffers[words[0]] ?? (expected.dkim == "pass" ? "pass" : "fail")
            #expect(words[1] == dkimpy, "\(words[0]): dkimpy says \(words[1])")
            compared += 1
        }
        #expect(compared == Self.names().count)
    }
}
