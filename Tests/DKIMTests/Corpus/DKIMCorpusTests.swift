import DKIM
import DNS
import Foundation
import MIME
import TestRequirements
import Testing

/// Runs the shared DKIM conformance corpus (`../shared/corpora/dkim` beside the package; see
/// its README): every `expected.tsv` row is checked against our verifier. Skipped when absent.
@Suite struct DKIMCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/corpora/dkim")

    /// `keys.zone` with the corpus' extra `NAME SERVFAIL` / `NAME TIMEOUT` lines.
    final class ZoneResolver: TXTResolver {
        let keys: KeysFile
        var failing: Set<String> = []
        init(text: String) {
            var kept: [Substring] = []
            for line in text.split(separator: "\n") {
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if words.count == 2, ["SERVFAIL", "TIMEOUT"].contains(words[1]) {
                    failing.insert(words[0].lowercased())
                } else {
                    kept.append(line)
                }
            }
            keys = KeysFile(text: kept.joined(separator: "\n"))
        }
        func lookupTXT(_ name: String) -> TXTLookupResult {
            failing.contains(name.lowercased()) ? .temporaryFailure("corpus: lookup fails") : keys.lookupTXT(name)
        }
    }

    /// Rows where we knowingly differ from the corpus, with why.
    static let knownDisagreements: [String: String] = [
        // The corpus' own rows say signature #2 of this message is `fail` (an rsa-sha1 signature
        // that does not verify), and its README ranks fail above permerror for the `msg`
        // verdict, yet the `msg` row expects permerror|policy. RFC 8301 §3.1 only forbids
        // calling an rsa-sha1 signature valid; a broken one is a plain fail (RFC 6376 §6.1.3).
        "mail-dkim/multiple_2.txt #msg": "corpus msg row contradicts its per-signature rows"
    ]

    static let ranking: [DKIMResult] = [.pass, .fail, .temperror, .policy, .permerror, .neutral, .none]

    static var directories: [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return [] }
        return names.filter { FileManager.default.fileExists(atPath: root.appendingPathComponent($0).appendingPathComponent("expected.tsv").path) }
            .sorted()
    }

    @Test(.enabled(if: Requirement.met(!directories.isEmpty), "no DKIM corpus at ../shared/corpora/dkim beside the checkout"))
    func corpus() throws {
        let directories = Self.directories
        try #require(!directories.isEmpty, "no DKIM corpus at \(Self.root.path)")
        let now = Int64(Date().timeIntervalSince1970)
        var checked = 0
        var disagreements: [String] = []
        // The agreement table of docs/CONFORMANCE.md: per directory, how many rows each
        // verifier gets within `expected` (the peers' results ship with the corpus).
        let peers = ["dkimpy", "maildkim", "gomsgauth", "libopendkim"]
        print("| set | rows | Reservoir | dkimpy | Mail::DKIM | go-msgauth | libopendkim |")
        for directory in directories {
            var agree = 0
            var rowCount = 0
            var peerAgree = [String: Int]()
            defer {
                let base = Self.root.appendingPathComponent(directory)
                if let text = try? String(contentsOf: base.appendingPathComponent("peer-results.tsv"), encoding: .utf8) {
                    let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
                    if let header = lines.first {
                        for line in lines.dropFirst() where line.count == header.count {
                            let accepted = Set(line[header.firstIndex(of: "expected") ?? 3].split(separator: "|").map(String.init))
                            for peer in peers {
                                if let column = header.firstIndex(of: peer), accepted.contains(line[column]) { peerAgree[peer, default: 0] += 1 }
                            }
                        }
                    }
                }
                print("| \(directory) | \(rowCount) | \(agree) | " + peers.map { String(peerAgree[$0] ?? 0) }.joined(separator: " | ") + " |")
            }
            let base = Self.root.appendingPathComponent(directory)
            let zone = (try? String(contentsOf: base.appendingPathComponent("keys.zone"), encoding: .utf8)) ?? ""
            let resolver = ZoneResolver(text: zone)
            let rows = try String(contentsOf: base.appendingPathComponent("expected.tsv"), encoding: .utf8).split(separator: "\n").dropFirst()
            for row in rows {
                let columns = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard columns.count >= 3 else { continue }
                let data = try Data(contentsOf: base.appendingPathComponent(columns[0]))
                let results = DKIMVerifier(resolver: resolver, now: now).verify(Message(bytes: [UInt8](data)))
                let accepted = Set(columns[2].split(separator: "|").map(String.init))
                let got: DKIMResult
                switch columns[1] {
                case "-", "msg":
                    got = results.map(\.result).min { Self.ranking.firstIndex(of: $0) ?? 99 < Self.ranking.firstIndex(of: $1) ?? 99 } ?? .none
                default:
                    guard let index = Int(columns[1]), index < results.count else {
                        disagreements.append("\(directory)/\(columns[0]) #\(columns[1]): only \(results.count) signatures")
                        continue
                    }
                    got = results[index].result
                }
                checked += 1
                rowCount += 1
                if accepted.contains(got.rawValue) { agree += 1 }
                if !accepted.contains(got.rawValue), Self.knownDisagreements["\(directory)/\(columns[0]) #\(columns[1])"] == nil {
                    let why =
                        columns[1] == "-" || columns[1] == "msg"
                        ? results.map { "\($0.result): \($0.reason)" }.joined(separator: " | ")
                        : (Int(columns[1]).map { results[$0].reason } ?? "")
                    disagreements.append("\(directory)/\(columns[0]) #\(columns[1]): expected \(columns[2]), got \(got.rawValue) (\(why))")
                }
            }
        }
        #expect(checked > 0, "the corpus has no rows")
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(checked):\n\(disagreements.joined(separator: "\n"))")
    }
}
