import Foundation
import Testing

@testable import Markup

/// Mutated copies of the golden fixtures: whatever the damage, extraction returns.
@Suite struct MarkupRobustnessTests {
    /// SplitMix64, so every run mutates the same way.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let alphabet = Array(#"{}[]",:'"<>/!-&;#\ itemscope"#.utf8) + [0x00, 0x0A, 0xFF, 0xC3]

    @Test(arguments: MarkupFixtureTests.fixtures)
    func survivesMutations(name: String) throws {
        let original = try Array(Data(contentsOf: MarkupFixtureTests.folder.appendingPathComponent(name + ".html")))
        var generator = SeededGenerator(state: UInt64(name.utf8.count) &* 7919)
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &generator) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = Self.alphabet.randomElement(using: &generator) ?? 0
                case 1: bytes.remove(at: index)
                default: bytes.insert(Self.alphabet.randomElement(using: &generator) ?? 0, at: index)
                }
            }
            let extraction = MarkupExtractor.extract(html: bytes)
            #expect(extraction.items.count <= MarkupLimits.maximumItems)
        }
    }

    @Test(arguments: MarkupFixtureTests.fixtures)
    func survivesEveryTruncation(name: String) throws {
        let original = try Array(Data(contentsOf: MarkupFixtureTests.folder.appendingPathComponent(name + ".html")))
        for end in stride(from: 0, through: original.count, by: 7) {
            _ = MarkupExtractor.extract(html: Array(original[0..<end]))
        }
    }
}

extension MarkupRobustnessTests {
    /// The pipeline scans on every core: libxml2 must give each thread the same answers.
    @Test func extractsConcurrently() async throws {
        let inputs = try MarkupFixtureTests.fixtures.map {
            try Array(Data(contentsOf: MarkupFixtureTests.folder.appendingPathComponent($0 + ".html")))
        }
        let expected = inputs.map { MarkupFixtureTests.render(MarkupExtractor.extract(html: $0)) }
        let results = await withTaskGroup(of: (Int, String).self) { group in
            for _ in 0..<8 {
                for (index, input) in inputs.enumerated() {
                    group.addTask { (index, MarkupFixtureTests.render(MarkupExtractor.extract(html: input))) }
                }
            }
            var collected: [(Int, String)] = []
            for await result in group { collected.append(result) }
            return collected
        }
        #expect(results.count == inputs.count * 8)
        for (index, rendered) in results { #expect(rendered == expected[index]) }
    }
}
