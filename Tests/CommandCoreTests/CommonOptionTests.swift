import Pipeline
import Testing
import Trust

@testable import CommandCore

/// The shared options are spelled once (`CommonOption`): the filter's own reader takes each of
/// them, and the words people read name only options that exist.
@Suite("CommonOption: one table for both parsers")
struct CommonOptionTests {
    static func sample(_ option: CommonOption) -> String {
        switch option {
        case .dnsTimeout, .timeout, .pendingDays: "7"
        case .me: "jane@example.org"
        case .now: "2026-11-22T12:00:00Z"
        case .recipientDelimiter: "+-"
        default: "x"
        }
    }

    @Test(
        "the filter's reader takes every option of the table, as --name value and --name=value",
        arguments: CommonOption.allCases)
    func filterReadsEveryOption(_ option: CommonOption) {
        if option.valueName == nil {
            #expect(FilterHook(arguments: [option.flag], configuration: .none) != nil)
            #expect(FilterHook(arguments: [option.flag + "=yes"], configuration: .none) == nil, "a flag takes no value")
        } else {
            #expect(FilterHook(arguments: [option.flag, Self.sample(option)], configuration: .none) != nil)
            #expect(FilterHook(arguments: [option.flag + "=" + Self.sample(option)], configuration: .none) != nil)
            #expect(FilterHook(arguments: [option.flag], configuration: .none) == nil, "a missing value is for the argument parser to explain")
        }
    }

    @Test("what the reader takes lands where the argument parser puts it")
    func filterSettings() throws {
        let hook = try #require(
            FilterHook(
                arguments: [
                    "--allow-domain", "a.example", "--allow-domain=b.example", "--me", "@example.org",
                    "--store", "sqlite:/tmp/x", "--timeout=9", "--no-store", "--allow-unverified",
                ], configuration: .none))
        #expect(hook.policy.allowDomain == ["a.example", "b.example"])
        #expect(hook.policy.me == ["@example.org"])
        #expect(hook.store == "sqlite:/tmp/x" && hook.timeout == 9 && hook.noStore && hook.policy.allowUnverified)
        #expect(FilterHook(arguments: ["--unknown"], configuration: .none) == nil)
    }

    @Test("every option the trust words name is in the table")
    func trustWordsNameRealOptions() {
        let refusals: [TrustRefusal] = [
            .domainNotAllowed("a.example"), .recipientNotSigned, .recipientNotListed,
            .partialBody(domain: "a.example", signedLength: 1),
        ]
        var texts = refusals.map(\.sentence)
        let decision = TrustDecision(
            trusted: true, vouchingDomain: nil, fromDomain: "a.example", refusals: [],
            overrides: [.allowAnyDomain, .allowUnverified])
        texts += [decision.reason] + decision.overrideFlags
        let known = Set(CommonOption.allCases.map(\.flag))
        var named = 0
        for text in texts {
            for word in text.split(whereSeparator: { !($0.isLetter || $0 == "-") }) where word.hasPrefix("--") {
                #expect(known.contains(String(word)), "\(word) in “\(text)”")
                named += 1
            }
        }
        #expect(named >= 5)
    }

    @Test("--store, its absence and no store at all are three choices")
    func storeChoice() {
        #expect(StoreChoice("sqlite:/x") == .at("sqlite:/x", createDirectories: false))
        #expect(StoreChoice(nil) == .standard)
        #expect(StoreChoice.none.location == nil)
        // The default location's directories are made; a named store's only with --create.
        #expect(StoreChoice.standard.location.map { $0.url == nil && $0.use == .record(createDirectories: true) } == true)
        #expect(StoreChoice("sqlite:/x").location.map { $0.url == "sqlite:/x" && $0.use == .record(createDirectories: false) } == true)
        #expect(StoreChoice("sqlite:/x", createDirectories: true).location?.use == .record(createDirectories: true))
    }
}
