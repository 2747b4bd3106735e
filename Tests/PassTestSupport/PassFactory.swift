import Foundation

/// Makes Wallet passes for tests with the `openssl` command: a CA of its own (valid 2020–2040,
/// so any pinned clock of the tests falls inside), signer certificates named as Apple names pass
/// type certificates (UID pass type, OU team, O organisation), and signed archives.
public final class PassFactory: @unchecked Sendable {
    public let directory: String
    /// The CA certificate (PEM), for `--pass-ca`.
    public var caPath: String { directory + "/ca.pem" }

    public struct Signer: Sendable {
        public var certificate: String
        public var key: String
    }

    /// Whether the `openssl` command is there; tests skip without it.
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") }

    /// A factory with a fresh CA named `name` in a temporary directory.
    public init(caName: String = "Reservoir Test Pass CA") throws {
        directory = NSTemporaryDirectory() + "reservoir-pass-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.config.write(toFile: directory + "/ca.cnf", atomically: true, encoding: .utf8)
        try "".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
        try "1000\n".write(toFile: directory + "/serial", atomically: true, encoding: .utf8)
        try run(["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-subj", "/CN=\(caName)", "-out", "ca.csr"])
        try run([
            "ca", "-batch", "-selfsign", "-config", "ca.cnf", "-keyfile", "ca.key", "-in", "ca.csr", "-startdate", "20200101000000Z",
            "-enddate", "20400101000000Z", "-extensions", "v3_ca", "-notext", "-out", "ca.pem",
        ])
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// A signer certificate from this CA with Apple's subject layout.
    public func signer(passType: String, team: String, organization: String, bits: Int = 2048) throws -> Signer {
        let name = UUID().uuidString
        try run([
            "req", "-new", "-newkey", "rsa:\(bits)", "-nodes", "-keyout", "\(name).key", "-subj",
            "/UID=\(passType)/CN=Pass Type ID: \(passType)/OU=\(team)/O=\(organization)/C=US", "-out", "\(name).csr",
        ])
        try run([
            "ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", "\(name).csr", "-preserveDN",
            "-startdate", "20200101000000Z", "-enddate", "20400101000000Z", "-extensions", "signer", "-notext", "-out", "\(name).pem",
        ])
        return Signer(certificate: directory + "/\(name).pem", key: directory + "/\(name).key")
    }

    /// A signed pass: pass.json and `files`, manifest.json with their SHA-1 digests, and a
    /// detached CMS signature (with signed attributes, signing time among them, unless
    /// `attributes` is false). `tamper` changes the files after they were signed.
    public func pass(
        json: String, signer: Signer, files: [String: [UInt8]] = ["icon.png": Array("not really a PNG".utf8)], attributes: Bool = true,
        tamper: (inout [String: [UInt8]]) -> Void = { _ in }
    ) throws -> [UInt8] {
        var contents = files
        contents["pass.json"] = Array(json.utf8)
        let work = directory + "/" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        var manifest: [String] = []
        for (name, data) in contents.sorted(by: { $0.key < $1.key }) {
            let path = work + "/digest-input"
            try Data(data).write(to: URL(fileURLWithPath: path))
            let output = try run(["dgst", "-sha1", "-r", path])
            manifest.append("\"\(name)\": \"\(output.prefix(40))\"")
        }
        let manifestText = "{" + manifest.joined(separator: ", ") + "}"
        try manifestText.write(toFile: work + "/manifest.json", atomically: true, encoding: .utf8)
        try run(
            [
                "cms", "-sign", "-binary", "-in", work + "/manifest.json", "-signer", signer.certificate, "-inkey", signer.key, "-certfile", caPath,
                "-outform", "DER", "-out", work + "/signature",
            ] + (attributes ? [] : ["-noattr"]))
        let signature = try [UInt8](Data(contentsOf: URL(fileURLWithPath: work + "/signature")))
        tamper(&contents)
        var entries = contents.sorted(by: { $0.key < $1.key }).map { ZipWriter.Entry($0.key, $0.value) }
        entries.append(ZipWriter.Entry("manifest.json", Array(manifestText.utf8)))
        entries.append(ZipWriter.Entry("signature", signature, deflate: false))
        return ZipWriter.archive(entries)
    }

    /// Runs `openssl` in the factory's directory; its standard output.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PassFactoryError(arguments: arguments) }
        return String(decoding: data, as: UTF8.self)
    }

    static let config = """
        [ ca ]
        default_ca = test
        [ test ]
        dir = .
        database = index.txt
        new_certs_dir = .
        serial = serial
        default_md = sha256
        policy = any
        unique_subject = no
        [ any ]
        UID = optional
        commonName = optional
        organizationalUnitName = optional
        organizationName = optional
        countryName = optional
        [ v3_ca ]
        basicConstraints = critical,CA:true
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash
        [ signer ]
        basicConstraints = critical,CA:false
        keyUsage = critical,digitalSignature
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        """
}

public struct PassFactoryError: Error, CustomStringConvertible {
    public var arguments: [String]
    public var description: String { "openssl " + arguments.joined(separator: " ") + " failed" }
}

/// The boarding pass of the tests: Cascadia Air, SFO → SEA, with an IATA bar code.
public enum SamplePassJSON {
    public static let passType = "pass.com.cascadia-air.boarding"
    public static let team = "CA5C4D1A"

    /// `relevantDate` nil leaves it out; `dayOfYear` is the flight's day in the bar code (073:
    /// 14 March in a common year).
    public static func boarding(
        passType: String = passType, team: String = team, relevantDate: String? = "2031-03-14T08:40:00-07:00", voided: Bool = false,
        dayOfYear: Int = 73
    ) -> String {
        let day = String(dayOfYear)
        let dayField = String(repeating: "0", count: max(0, 3 - day.count)) + day
        return """
            {"formatVersion": 1, "passTypeIdentifier": "\(passType)", "teamIdentifier": "\(team)",
             "organizationName": "Cascadia Air", "serialNumber": "CA-7Q2XKD-1", "description": "Boarding pass",
             \(relevantDate.map { "\"relevantDate\": \"\($0)\"," } ?? "") "voided": \(voided),
             "barcodes": [{"format": "PKBarcodeFormatPDF417", "message": "M1RIVERA/JANE         E7Q2XKD SFOSEACA 0318 \(dayField)Y012C0042 100", "messageEncoding": "iso-8859-1"}],
             "boardingPass": {"transitType": "PKTransitTypeAir",
               "headerFields": [{"key": "gate", "label": "GATE", "value": "B12"}],
               "primaryFields": [{"key": "origin", "label": "San Francisco", "value": "SFO"}, {"key": "destination", "label": "Seattle", "value": "SEA"}],
               "auxiliaryFields": [{"key": "flight", "label": "FLIGHT", "value": "CA 318"}, {"key": "seat", "label": "SEAT", "value": "12C"}]}}
            """
    }
}
