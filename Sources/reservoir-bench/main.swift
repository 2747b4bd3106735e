import DKIM
import DNS
import Glibc
import MIME
import Mailbox

/// Stage benchmarks for docs/PERFORMANCE.md (driven by scripts/bench):
///
///     reservoir-bench read   PATH…           read every message (the I/O floor)
///     reservoir-bench parse  PATH…           parse, and decode every text part to UTF-8
///     reservoir-bench verify KEYS PATH…      parse and verify every DKIM signature
///
/// One thread, one line of results on standard output:
/// `stage messages bytes seconds msgs/s MB/s checksum`.
@main
enum ReservoirBench {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let stage = arguments.first, ["read", "parse", "verify"].contains(stage) else {
            complain("usage: reservoir-bench read|parse PATH… | verify KEYS PATH…\n")
            exit(64)
        }
        arguments.removeFirst()
        var verifier: DKIMVerifier?
        if stage == "verify" {
            guard !arguments.isEmpty, let keys = try? KeysFile(path: arguments.removeFirst()) else {
                complain("reservoir-bench: verify needs a readable keys file\n")
                exit(66)
            }
            verifier = DKIMVerifier(resolver: CachingResolver(wrapping: keys), now: Int64(time(nil)))
        }
        var messages = 0
        var bytes = 0
        var checksum = 0
        let start = ContinuousClock.now
        for path in arguments {
            guard let source = try? MessageSource(path: path) else {
                complain("reservoir-bench: cannot read \(path)\n")
                exit(66)
            }
            for found in source {
                // Parsing and verification themselves are measured: every message in memory.
                guard let raw = try? found.whole() else { continue }
                messages += 1
                bytes += raw.bytes.count
                switch stage {
                case "read":
                    checksum &+= Int(raw.bytes.last ?? 0)
                case "parse":
                    let message = Message(bytes: raw.bytes)
                    checksum &+= message.subject?.utf8.count ?? 0
                    for part in message.root.allParts where part.isLeaf && part.contentType.type == "text" {
                        checksum &+= message.text(of: part).utf8.count
                    }
                default:
                    let message = Message(bytes: raw.bytes)
                    for result in verifier!.verify(message) where result.result == .pass { checksum += 1 }
                }
            }
        }
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let mb = Double(bytes) / 1_000_000
        print("\(stage) \(messages) \(bytes) \(fixed(seconds, 3)) \(fixed(Double(messages) / seconds, 0)) \(fixed(mb / seconds, 1)) \(checksum)")
    }

    static func complain(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        return digits == 0 ? String(Int(rounded)) : String(rounded)
    }
}
