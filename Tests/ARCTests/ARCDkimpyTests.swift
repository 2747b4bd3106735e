import ARC
import DKIM
import DNS
import Foundation
import MIME
import Mailbox
import Pipeline
import PipelineTestSupport
import Reservations
import TestRequirements
import Testing
import Trust

/// ARC chains sealed by dkimpy (`dkim.arc_sign`, Debian python3-dkim with python3-authres) with
/// keys the test makes, validated here through a keys file and by dkimpy's `dkim.arc_verify`:
/// both must give the same `cv`. Skipped when `/usr/bin/python3` lacks either module.
@Suite("ARC chains: Reservoir and dkimpy agree", .serialized)
struct ARCDkimpyTests {
    static let python = "/usr/bin/python3"

    static let script = """
        import sys, dkim
        mode = sys.argv[1]
        def keys(path):
            table = {}
            for line in open(path):
                name, record = line.rstrip('\\n').split(' ', 1)
                table[name.encode()] = record.encode()
            return lambda name, timeout=5: table.get(name.rstrip(b'.'))
        if mode == 'seal':
            message = open(sys.argv[2], 'rb').read()
            key = open(sys.argv[3], 'rb').read()
            domain, srv, results, stamp = sys.argv[4].encode(), sys.argv[5].encode(), sys.argv[6].encode(), int(sys.argv[7])
            message = b'Authentication-Results: ' + srv + b'; ' + results + b'\\r\\n' + message
            sealed = dkim.arc_sign(message, b'arc', domain, key, srv, timestamp=stamp)
            sys.stdout.buffer.write(b''.join(sealed) + message)
        else:
            message = open(sys.argv[2], 'rb').read()
            cv, results, reason = dkim.arc_verify(message, dnsfunc=keys(sys.argv[3]))
            # dkimpy answers None for a chain a sealer terminated (cv=fail at the top): a fail.
            print((cv or b'fail').decode())
        """

    static let available: Bool = run(["-c", "import dkim, authres"]) != nil

    static func run(_ arguments: [String]) -> Data? {
        guard FileManager.default.isExecutableFile(atPath: python) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? data : nil
    }

    /// A fresh directory with an RSA key per sealer (made with openssl) and the keys file
    /// listing them beside the samples' keys.
    final class Sealers {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reservoir-arc-\(UUID().uuidString)")
        var records: [String: String] = [:]

        init(_ domains: [String]) throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for domain in domains {
                let key = directory.appendingPathComponent(domain + ".pem")
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
                process.arguments = ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key.path]
                process.standardError = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
                let signer = try DKIMSigner(privateKeyPEM: try String(contentsOf: key, encoding: .utf8))
                records["arc._domainkey." + domain] = signer.publicKeyRecord()
            }
            // One record a line for dkimpy.
            let lines = records.map { "\($0.key) \($0.value)" }.joined(separator: "\n") + "\n"
            try lines.write(to: directory.appendingPathComponent("keys.txt"), atomically: true, encoding: .utf8)
        }

        func key(_ domain: String) -> String { directory.appendingPathComponent(domain + ".pem").path }

        /// The project's keys-file format (`--keys`): the samples' keys and the sealers'.
        func keysFile() throws -> KeysFile {
            let samples = try String(contentsOfFile: Samples.keysZone, encoding: .utf8)
            return KeysFile(text: samples + "\n" + records.map { "\($0.key) TXT \"\($0.value)\"" }.joined(separator: "\n") + "\n")
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static let now = Int64(Date().timeIntervalSince1970)

    /// Seals `message` as `domain` with `mx.<domain>` as the authserv-id recording `results`.
    static func seal(_ message: [UInt8], by domain: String, results: String, sealers: Sealers, offset: Int64 = 0) throws -> [UInt8] {
        let file = sealers.directory.appendingPathComponent(UUID().uuidString)
        try Data(message).write(to: file)
        let out = try #require(
            run(["-c", script, "seal", file.path, sealers.key(domain), domain, "mx." + domain, results, String(now - 600 + offset)]),
            "dkimpy failed to seal")
        return [UInt8](out)
    }

    static func dkimpyVerdict(_ message: [UInt8], sealers: Sealers) throws -> String {
        let file = sealers.directory.appendingPathComponent(UUID().uuidString)
        try Data(message).write(to: file)
        let out = try #require(run(["-c", script, "verify", file.path, sealers.directory.appendingPathComponent("keys.txt").path]))
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func ours(_ message: [UInt8], sealers: Sealers) throws -> ARCValidation {
        ARCValidator.validate(Message(bytes: message), verifier: DKIMVerifier(resolver: try sealers.keysFile(), now: now))
    }

    /// A confirmation signed by epicsteak.example (the samples' key), then changed by the
    /// forwarder (a subject tag): its own DKIM signature fails, and only ARC can vouch.
    static func forwardedConfirmation() throws -> [UInt8] {
        let header =
            "From: EPIC Steak <reservations@epicsteak.example>\r\nTo: jane@home.example\r\nSubject: Your table\r\n"
            + "Date: Sat, 21 Nov 2026 10:00:00 -0800\r\nMessage-ID: <arc-1@epicsteak.example>\r\n"
            + "MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        let body = """
            <html><body><script type="application/ld+json">{"@context":"https://schema.org","@type":"FoodEstablishmentReservation",\r
            "reservationId":"ARC1","reservationStatus":"https://schema.org/ReservationConfirmed",\r
            "startTime":"2031-05-12T19:30:00-07:00","reservationFor":{"@type":"Restaurant","name":"EPIC Steak"}}</script></body></html>\r

            """
        let signer = try DKIMSigner(
            privateKeyPEM: try String(contentsOf: Samples.root.appendingPathComponent("scripts/samples/sample-dkim-key.pem"), encoding: .utf8))
        let field = try signer.sign(
            Array((header + body).utf8), domain: "epicsteak.example", selector: "s2026",
            headers: ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type"],
            canonicalization: try #require(DKIMCanonicalization(tag: "relaxed/relaxed")), timestamp: now - 3600, expiration: nil)
        let signed = field.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n") + header + body
        return Array(signed.replacingOccurrences(of: "Subject: Your table", with: "Subject: [fwd] Your table").utf8)
    }

    static let firstResults = "dkim=pass header.d=epicsteak.example header.s=s2026"

    static func oneInstance(_ sealers: Sealers, by sealer: String = "provider.example") throws -> [UInt8] {
        try seal(try forwardedConfirmation(), by: sealer, results: firstResults, sealers: sealers)
    }

    static func twoInstances(_ sealers: Sealers, second: String = "relay.example", cv: String = "pass") throws -> [UInt8] {
        try seal(try oneInstance(sealers), by: second, results: "arc=\(cv); dkim=fail header.d=epicsteak.example", sealers: sealers, offset: 60)
    }

    static func pipeline(_ sealers: Sealers, trusting: [String]) throws -> ReservationPipeline {
        ReservationPipeline(
            resolver: try sealers.keysFile(),
            policy: TrustPolicy(
                allowedDomains: ["epicsteak.example"], publicSuffixes: PublicSuffixList.load(), trustedARCSealers: trusting),
            store: nil, now: now)
    }

    /// Removes every header field of `name` with `i=<instance>`.
    static func removing(_ message: [UInt8], instance: Int) -> [UInt8] {
        let parsed = Message(bytes: message)
        var out: [UInt8] = []
        var last = 0
        for field in parsed.header.fields where field.name.lowercased().hasPrefix("arc-") {
            let value = String(decoding: message[field.valueRange], as: UTF8.self).replacingOccurrences(of: " ", with: "")
            if value.hasPrefix("i=\(instance);") || value.contains(";i=\(instance);") || value.hasPrefix("\r\n\ti=\(instance);") {
                out += message[last..<field.rawRange.lowerBound]
                last = field.rawRange.upperBound
                while last < message.count, message[last] == 0x0D || message[last] == 0x0A { last += 1 }
            }
        }
        return out + message[last...]
    }

    func compare(_ name: String, _ message: [UInt8], _ sealers: Sealers, expect: ARCResult, dkimpy: ARCResult? = nil) throws -> ARCValidation {
        let ours = try Self.ours(message, sealers: sealers)
        let theirs = try Self.dkimpyVerdict(message, sealers: sealers)
        print("ARC \(name): Reservoir \(ours.result.rawValue)\(ours.code.map { " (\($0.rawValue))" } ?? ""), dkimpy \(theirs)")
        #expect(ours.result == expect, "\(name): \(ours.reason)")
        #expect(theirs == (dkimpy ?? expect).rawValue, "\(name): dkimpy")
        return ours
    }

    @Test(
        "a valid chain of one instance: pass, and trusted through the sealer when it is trusted",
        .enabled(if: Requirement.met(available), "python3 cannot import dkim and authres (install python3-dkim python3-authres)"))
    func oneInstanceChain() throws {
        try #require(Self.available, "\(Self.python) cannot import dkim and authres (install python3-dkim python3-authres)")
        let sealers = try Sealers(["provider.example"])
        defer { sealers.remove() }
        let message = try Self.oneInstance(sealers)
        let validation = try compare("one instance", message, sealers, expect: .pass)
        #expect(validation.instances.map(\.sealer) == ["provider.example"])
        let raw = RawMessage(bytes: message, origin: MessageOrigin())
        let untrusted = try Self.pipeline(sealers, trusting: []).analyze(raw)
        #expect(!untrusted.trust.trusted, "the subject tag broke the DKIM signature; ARC is off by default")
        let trusted = try Self.pipeline(sealers, trusting: ["provider.example"]).analyze(raw)
        #expect(trusted.trust.trusted, "\(trusted.trust.reason)")
        #expect(trusted.trust.path == .arc(sealer: "provider.example", instance: 1))
        #expect(trusted.trust.vouchingDomain == "epicsteak.example")
        #expect(trusted.items.map(\.reservation.reservationID) == ["ARC1"])
        #expect(trusted.trust.reason.contains("via ARC sealed by provider.example"))
    }

    @Test(
        "a valid chain of two instances: pass; a later untrusted sealer refuses the path",
        .enabled(if: Requirement.met(available), "python3 cannot import dkim and authres (install python3-dkim python3-authres)"))
    func twoInstanceChain() throws {
        try #require(Self.available, "\(Self.python) cannot import dkim and authres (install python3-dkim python3-authres)")
        let sealers = try Sealers(["provider.example", "relay.example"])
        defer { sealers.remove() }
        let message = try Self.twoInstances(sealers)
        let validation = try compare("two instances", message, sealers, expect: .pass)
        #expect(validation.instances.map(\.chainValidation) == ["none", "pass"])
        let raw = RawMessage(bytes: message, origin: MessageOrigin())
        let both = try Self.pipeline(sealers, trusting: ["provider.example", "relay.example"]).analyze(raw)
        #expect(both.trust.trusted, "\(both.trust.reason)")
        #expect(both.trust.path == .arc(sealer: "provider.example", instance: 1), "the first trusted instance's results count")
        let first = try Self.pipeline(sealers, trusting: ["provider.example"]).analyze(raw)
        #expect(!first.trust.trusted)
        #expect(first.trust.refusals.map(\.code).contains(.arcSealerNotTrusted))
    }

    @Test(
        "the body altered after sealing: fail",
        .enabled(if: Requirement.met(available), "python3 cannot import dkim and authres (install python3-dkim python3-authres)"))
    func alteredBody() throws {
        try #require(Self.available, "\(Self.python) cannot import dkim and authres (install python3-dkim python3-authres)")
        let sealers = try Sealers(["provider.example"])
        defer { sealers.remove() }
        let sealed = String(decoding: try Self.oneInstance(sealers), as: UTF8.self)
        let altered = Array(sealed.replacingOccurrences(of: "ARC1", with: "ARC9").utf8)
        let validation = try compare("altered body", altered, sealers, expect: .fail)
        #expect(validation.code == .messageSignatureFailed)
        let report = try Self.pipeline(sealers, trusting: ["provider.example"]).analyze(RawMessage(bytes: altered, origin: MessageOrigin()))
        #expect(!report.trust.trusted)
        #expect(report.trust.refusals.map(\.code).contains(.arcNotValid))
    }

    @Test(
        "a valid chain sealed by a sealer that is not trusted: pass, but not trusted",
        .enabled(if: Requirement.met(available), "python3 cannot import dkim and authres (install python3-dkim python3-authres)"))
    func untrustedSealer() throws {
        try #require(Self.available, "\(Self.python) cannot import dkim and authres (install python3-dkim python3-authres)")
        let sealers = try Sealers(["stranger.example"])
        defer { sealers.remove() }
        let message = try Self.oneInstance(sealers, by: "stranger.example")
        _ = try compare("untrusted sealer", message, sealers, expect: .pass)
        let report = try Self.pipeline(sealers, trusting: ["provider.example"]).analyze(RawMessage(bytes: message, origin: MessageOrigin()))
        #expect(!report.trust.trusted)
        #expect(report.trust.refusals.map(\.code).contains(.arcSealerNotTrusted))
    }

    @Test(
        "a broken cv= chain: a sealer saying cv=fail, and a cv= edited after sealing",
        .enabled(if: Requirement.met(available), "python3 cannot import dkim and authres (install python3-dkim python3-authres)"))
    func brokenChainValue() throws {
        try #require(Self.available, "\(Self.python) cannot import dkim and authres (install python3-dkim python3-authres)")
        let sealers = try Sealers(["provider.example", "relay.example"])
        defer { sealers.remove() }
        let failed = try Self.twoInstances(sealers, cv: "fail")
        let validation = try compare("cv=fail", failed, sealers, expect: .fail)
        #expect(validation.code == .chainFailed || validation.code == .missingField)
        let text = String(decoding: try Self.twoInstances(sealers), as: UTF8.self)
        let edited = Array(text.replacingOccurrences(of: "cv=none", with: "cv=pass").utf8)
        let second = try compare("cv edited", edited, sealers, expect: .fail)
        #expect(second.code == .wrongChainValue)
    }

    @Test(
        "a missing instance fails; instances in another field order still pass (dkimpy: fail)",
        .enabled(if: Requirement.met(available), "python3 cannot import dkim and authres (install python3-dkim python3-authres)"))
    func missingAndReordered() throws {
        try #require(Self.available, "\(Self.python) cannot import dkim and authres (install python3-dkim python3-authres)")
        let sealers = try Sealers(["provider.example", "relay.example"])
        defer { sealers.remove() }
        let message = try Self.twoInstances(sealers)
        let missing = Self.removing(message, instance: 1)
        #expect(missing.count < message.count)
        let validation = try compare("missing instance", missing, sealers, expect: .fail)
        #expect(validation.code == .missingField)
        // The sets of instance 2 moved below those of instance 1: ARC orders by i=, not by place.
        let parsed = Message(bytes: message)
        let arcFields = parsed.header.fields.filter { $0.name.lowercased().hasPrefix("arc-") }
        let secondSet = arcFields.prefix(3)
        let firstSet = arcFields.dropFirst(3).prefix(3)
        guard let start = secondSet.first?.rawRange.lowerBound, let middle = firstSet.first?.rawRange.lowerBound,
            let end = firstSet.last?.rawRange.upperBound
        else { throw CocoaError(.coderInvalidValue) }
        var endOfLine = end
        while endOfLine < message.count, message[endOfLine] == 0x0D || message[endOfLine] == 0x0A { endOfLine += 1 }
        let reordered = Array(message[..<start]) + message[middle..<endOfLine] + message[start..<middle] + message[endOfLine...]
        #expect(reordered.count == message.count)
        // The one known disagreement: dkimpy picks the fields an ARC-Seal covers by name,
        // bottom-up, as DKIM's h= does, so it needs instance 1 lowest; RFC 8617 §5.1.1 orders
        // them by instance, wherever they stand.
        _ = try compare("reordered sets", reordered, sealers, expect: .pass, dkimpy: .fail)
    }
}
