import ArgumentParser
import CommandCore
import DKIM
import Mailbox
import Pipeline
import ReservoirBase

struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Add a DKIM-Signature to a message (rsa-sha256 or ed25519-sha256).",
        discussion: """
            Reads the message on standard input and writes it signed to standard output, the \
            new field first. The algorithm follows the key: RSA (2048 bits or more advised) or \
            Ed25519. Canonicalization is relaxed/relaxed unless --canonicalization says otherwise.

            Each field named by --headers (by default From, To, Cc, Subject, Date, Message-ID, \
            Reply-To, MIME-Version, Content-Type and Content-Transfer-Encoding) is over-signed: \
            listed in h= once more than the message has instances of it, a field the message \
            lacks once (RFC 6376 §5.4.2, §8.15). A field added later, such as a second Subject \
            or Content-Type above the signed one, then breaks the signature. --no-over-sign \
            lists the names exactly as --headers gives them.

            Examples:
              reservoir sign --key k.pem --domain example.com --selector s1 < m > out
              reservoir sign --key k.pem --domain example.com --selector s1 \\
                  --headers From:Subject:Date < m > out
              reservoir sign --key k.pem --print-key-record \\
                  --zone-name s1._domainkey.example.com
            """)

    @Option(name: .customLong("key"), help: ArgumentHelp("The private key, PEM (PKCS#8 or traditional).", valueName: "pem"))
    var key: String

    @Option(name: .customLong("domain"), help: "The signing domain (d=).")
    var domain: String?

    @Option(name: .customLong("selector"), help: "The selector (s=).")
    var selector: String?

    @Option(name: .customLong("headers"), help: ArgumentHelp("Header fields to sign, colon-separated.", valueName: "names"))
    var headers: String = DKIMSigner.protectedFields.joined(separator: ":")

    @Flag(
        name: .customLong("over-sign"), inversion: .prefixedNo,
        help: "List each field in h= once more than the message has it, so none can be added (default).")
    var overSign = true

    @Option(
        name: .customLong("canonicalization"),
        help: ArgumentHelp("c= value: relaxed/relaxed, simple/simple, relaxed/simple or simple/relaxed.", valueName: "c"))
    var canonicalization: String = "relaxed/relaxed"

    @Option(name: .customLong("timestamp"), help: ArgumentHelp("t= value (Unix seconds); default now.", valueName: "seconds"))
    var timestamp: Int64?

    @Option(name: .customLong("expiration"), help: ArgumentHelp("x= value (Unix seconds).", valueName: "seconds"))
    var expiration: Int64?

    @Flag(name: .customLong("print-key-record"), help: "Print the public key as a keys-file line instead of signing.")
    var printKeyRecord = false

    @Option(name: .customLong("zone-name"), help: ArgumentHelp("The record name for --print-key-record.", valueName: "name"))
    var zoneName: String?

    func validate() throws {
        if !printKeyRecord, domain == nil || selector == nil {
            throw ValidationError("--domain and --selector are required to sign")
        }
        if DKIMCanonicalization(tag: canonicalization) == nil {
            throw ValidationError("--canonicalization must be one of relaxed/relaxed, simple/simple, relaxed/simple, simple/relaxed")
        }
    }

    func run() throws {
        guard let pem = FileText.read(key) else { throw CommandFailure.unreadable(key, "cannot read the private key") }
        let signer: DKIMSigner
        do {
            signer = try DKIMSigner(privateKeyPEM: pem)
        } catch {
            throw CommandFailure.unreadable(key, "\(error)")
        }
        if printKeyRecord {
            Output.line(KeyRecordLine.format(name: zoneName ?? "selector._domainkey.example.com", record: signer.publicKeyRecord()))
            return
        }
        let message: [UInt8]
        do {
            message = try StandardInput.readAll()
        } catch {
            throw CommandFailure.unreadable("-", "cannot read standard input: \(error)")
        }
        let field = try signer.sign(
            message, domain: domain ?? "", selector: selector ?? "",
            headers: headers.split(separator: ":").map { String($0) }, overSign: overSign,
            canonicalization: DKIMCanonicalization(tag: canonicalization) ?? .relaxedRelaxed,
            timestamp: timestamp ?? WallClock.system.now(), expiration: expiration)
        Output.write(field)
        _ = Output.bytes(message)
    }
}

/// A keys-file line: `NAME TXT "…" "…"`, the record split into strings of at most 255
/// octets (RFC 1035 §3.3.14 character-strings).
enum KeyRecordLine {
    static func format(name: String, record: String) -> String {
        var strings: [String] = []
        var rest = Substring(record)
        while !rest.isEmpty {
            let chunk = rest.prefix(255)
            strings.append("\"" + chunk + "\"")
            rest = rest.dropFirst(chunk.count)
        }
        return name + " TXT " + strings.joined(separator: " ")
    }
}
