import Foundation
import ReservoirBase
import TestRequirements
import Testing

@testable import MIME

/// Stalwart mail-parser's header vectors (`stalwart-mail-parser/*.json` in the shared corpus),
/// compared where its reading and RFC 5322's agree; the differences are listed with reasons.
@Suite(.enabled(if: Requirement.met(CorpusTests.available), "no MIME corpus at ../shared/corpora/mime beside the checkout"))
struct StalwartVectorTests {
    static let folder = CorpusTests.corpus.appendingPathComponent("stalwart-mail-parser")

    static func vectors(_ name: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        return try #require(JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    /// The value as it would stand in a field: up to the first line break not followed by WSP.
    static func fieldValue(_ header: String) -> [UInt8] {
        let bytes = Array(header.utf8)
        var end = 0
        while end < bytes.count {
            if bytes[end] == 0x0A, end + 1 >= bytes.count || (bytes[end + 1] != 0x20 && bytes[end + 1] != 0x09) { break }
            end += 1
        }
        return Array(bytes[..<end])
    }

    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    @Test func unstructured() throws {
        // Stalwart inserts a space between text and a directly following encoded word
        // ("[SPAM]=?…?=" → "[SPAM] …"); RFC 2047 and Python do not.
        let differences: Set<Int> = [21, 27, 28]
        for (index, vector) in try Self.vectors("unstructured.json").enumerated() where !differences.contains(index) {
            guard let header = vector["header"] as? String, let expected = vector["expected"] as? String else { continue }
            if header.hasPrefix(" from x.y.test") { continue }  // a Received field, not unstructured
            let decoded = HeaderText.decode(Self.fieldValue(header)).text
            #expect(Self.collapsed(decoded) == Self.collapsed(expected), "vector \(index): \(header)")
        }
    }

    @Test func dates() throws {
        // 12: a list of numbers Stalwart reads as a date; 28: a whole Received field.
        let differences: Set<Int> = [12, 28]
        for (index, vector) in try Self.vectors("date.json").enumerated() where !differences.contains(index) {
            guard let header = vector["header"] as? String else { continue }
            let parsed = MessageDate.parse(Self.fieldValue(header))
            guard let expected = vector["expected"] as? [String: Any] else {
                #expect(parsed == nil, "vector \(index): \(header)")
                continue
            }
            func int(_ key: String) -> Int { (expected[key] as? Int) ?? -1 }
            let sign = (expected["tz_before_gmt"] as? Bool) == true ? -1 : 1
            let offset = sign * (int("tz_hour") * 3600 + int("tz_minute") * 60)
            let days = CivilTime.daysFromCivil(year: int("year"), month: int("month"), day: int("day"))
            let local = Int64(days) * 86_400 + Int64(int("hour") * 3600 + int("minute") * 60 + int("second"))
            #expect(parsed == MessageDate(epochSeconds: local - Int64(offset), offsetSeconds: offset), "vector \(index): \(header)")
        }
    }

    @Test func addresses() throws {
        // 13: Stalwart keeps the obsolete route "@node.test:"; RFC 5322 §4.4 says to drop it.
        let differences: Set<Int> = [13]
        for (index, vector) in try Self.vectors("address.json").enumerated() where !differences.contains(index) {
            guard let header = vector["header"] as? String, let expected = vector["expected"] as? [String: Any] else { continue }
            var addresses: [String] = []
            if let list = expected["List"] as? [[String: Any]] {
                addresses = list.compactMap { $0["address"] as? String }
            } else if let groups = expected["Group"] as? [[String: Any]] {
                for group in groups {
                    addresses += ((group["addresses"] as? [[String: Any]]) ?? []).compactMap { $0["address"] as? String }
                }
            }
            let parsed = MailboxAddress.parseList(Self.fieldValue(header))
            #expect(parsed.map(\.address) == addresses.map { $0.filter { $0 != " " } }, "vector \(index): \(header)")
        }
    }
}
