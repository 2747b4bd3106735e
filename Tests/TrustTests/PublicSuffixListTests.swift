import Foundation
import TestRequirements
import Testing

@testable import Trust

/// Internationalized public suffixes: Debian's list writes them in Unicode (`公司.cn`), signing
/// domains come as A-labels and SMTPUTF8 From domains as U-labels. Two registrants under such
/// a suffix are two organizations (RFC 7489 §3.2).
@Suite("Relaxed alignment under internationalized public suffixes")
struct PublicSuffixListTests {
    /// Debian's list, or nil (with a message) when the `publicsuffix` package is absent.
    static let debianList: PublicSuffixList? = PublicSuffixList.load()
    static let debianText: String? = try? String(contentsOfFile: PublicSuffixList.defaultPath, encoding: .utf8)

    /// Suffixes the Debian list writes in Unicode, with their A-labels.
    static let suffixes: [(unicode: String, ascii: String)] = [
        ("公司.cn", "xn--55qx5d.cn"),
        ("個人.hk", "xn--gmqw5a.hk"),
        ("公司.香港", "xn--55qx5d.xn--j6w193g"),
    ]

    static func policy(_ list: PublicSuffixList) -> TrustPolicy {
        TrustPolicy(allowedDomains: [], publicSuffixes: list)
    }

    @Test(
        "two registrants under a Unicode suffix of Debian's list do not align; a subdomain aligns with its parent",
        .enabled(if: Requirement.met(debianList != nil), "no Public Suffix List at /usr/share/publicsuffix (install publicsuffix)"),
        arguments: suffixes)
    func debianSuffix(unicode: String, ascii: String) throws {
        let list = try #require(Self.debianList, "no Public Suffix List at \(PublicSuffixList.defaultPath) (install publicsuffix)")
        let text = try #require(Self.debianText, "no Public Suffix List at \(PublicSuffixList.defaultPath) (install publicsuffix)")
        // The suffix is a rule of the list as Debian ships it, in Unicode.
        #expect(text.split(separator: "\n").contains { $0 == unicode })
        let policy = Self.policy(list)
        #expect(!policy.isAligned(signingDomain: "a.\(ascii)", fromDomain: "b.\(ascii)"))
        #expect(policy.isAligned(signingDomain: "shop.a.\(ascii)", fromDomain: "a.\(ascii)"))
        // A From domain in U-labels (SMTPUTF8), d= in A-labels.
        #expect(!policy.isAligned(signingDomain: "a.\(ascii)", fromDomain: "b.\(unicode)"))
        #expect(policy.isAligned(signingDomain: "shop.a.\(ascii)", fromDomain: "a.\(unicode)"))
        #expect(policy.isAligned(signingDomain: "a.\(ascii)", fromDomain: "a.\(unicode)"))
        // The suffix itself is nobody's organizational domain.
        #expect(list.organizationalDomain(of: ascii) == nil)
        #expect(list.organizationalDomain(of: unicode) == nil)
        #expect(list.organizationalDomain(of: "x.y.\(unicode)") == "y.\(ascii)")
        #expect(!policy.isAligned(signingDomain: ascii, fromDomain: "b.\(ascii)"))
    }

    @Test(
        "every rule of Debian's list is indexed in ASCII",
        .enabled(if: Requirement.met(debianList != nil), "no Public Suffix List at /usr/share/publicsuffix (install publicsuffix)"))
    func debianRulesAreASCII() throws {
        try #require(Self.debianList != nil, "no Public Suffix List at \(PublicSuffixList.defaultPath) (install publicsuffix)")
        let rules = PublicSuffixList.parse(PublicSuffixList.read(PublicSuffixList.defaultPath))
        #expect(rules.rules.count > 1_000)
        for rule in rules.rules.union(rules.wildcards).union(rules.exceptions) {
            #expect(rule.utf8.allSatisfy { $0 < 0x80 }, "\(rule)")
        }
        #expect(rules.rules.contains("xn--55qx5d.cn"))
    }

    @Test("a list of Unicode rules (wildcard and exception included) is looked up in A-labels")
    func unicodeRules() {
        let list = PublicSuffixList(text: "// a comment: 公司\n公司.cn\n*.個人.hk\n!www.個人.hk\ncn\nhk\n")
        #expect(list.organizationalDomain(of: "a.xn--55qx5d.cn") == "a.xn--55qx5d.cn")
        #expect(list.organizationalDomain(of: "shop.a.公司.cn") == "a.xn--55qx5d.cn")
        #expect(list.organizationalDomain(of: "xn--55qx5d.cn") == nil)
        // *.個人.hk: every name directly under it is a suffix too.
        #expect(list.organizationalDomain(of: "b.a.xn--gmqw5a.hk") == "b.a.xn--gmqw5a.hk")
        #expect(list.organizationalDomain(of: "a.xn--gmqw5a.hk") == nil)
        #expect(list.organizationalDomain(of: "www.個人.hk") == "www.xn--gmqw5a.hk")
        let policy = Self.policy(list)
        #expect(!policy.isAligned(signingDomain: "a.xn--55qx5d.cn", fromDomain: "b.公司.cn"))
        #expect(policy.isAligned(signingDomain: "mail.a.xn--55qx5d.cn", fromDomain: "A.公司.CN"))
    }

    @Test(
        "a domain libidn2 refuses aligns with nothing, not even itself",
        arguments: ["a.xn--zz.cn", "a\u{202E}b.公司.cn", "x.xn--ls8h.cn", "😀.公司.cn", "a\u{0}.公司.cn"])
    func refused(domain: String) {
        let policy = Self.policy(PublicSuffixList(text: "公司.cn\ncn\n"))
        #expect(IDNA.asciiDomain(domain) == nil)
        #expect(!policy.isAligned(signingDomain: domain, fromDomain: domain))
        #expect(!policy.isAligned(signingDomain: "a.xn--55qx5d.cn", fromDomain: domain))
        #expect(!policy.isAligned(signingDomain: domain, fromDomain: "a.xn--55qx5d.cn"))
        #expect(PublicSuffixList(text: "公司.cn\n").organizationalDomain(of: domain) == nil)
    }

    @Test("the allowed list and the From domain meet in A-labels")
    func allowedDomains() {
        let policy = TrustPolicy(allowedDomains: ["a.公司.cn", ".xn--gmqw5a.hk"])
        #expect(policy.isAllowed(domain: "a.xn--55qx5d.cn"))
        #expect(policy.isAllowed(domain: "A.公司.cn"))
        #expect(!policy.isAllowed(domain: "b.公司.cn"))
        #expect(policy.isAllowed(domain: "shop.個人.hk"))
        #expect(!policy.isAllowed(domain: "a\u{202E}.個人.hk"))
    }
}

@Suite("Domain names in A-labels")
struct IDNATests {
    @Test(
        "converted by libidn2 (UTS #46 non-transitional), lowercased",
        arguments: [
            ("公司.cn", "xn--55qx5d.cn"),
            ("A.公司.CN", "a.xn--55qx5d.cn"),
            ("XN--55QX5D.CN", "xn--55qx5d.cn"),
            ("Straße.de", "xn--strae-oqa.de"),
            ("Epicsteak.Example", "epicsteak.example"),
            ("mail_x.example", "mail_x.example"),
        ])
    func converted(domain: String, ascii: String) {
        #expect(IDNA.asciiDomain(domain) == ascii)
    }

    @Test(
        "libidn2 sees only names with a non-ASCII byte or an xn-- label",
        arguments: [
            ("example.com", false), ("xn--55qx5d.cn", true), ("a.XN--55qx5d.cn", true), ("xn-.cn", false),
            ("axn--b.cn", false), ("é.cn", true), ("", false),
        ])
    func needsConversion(domain: String, needed: Bool) {
        #expect(IDNA.needsConversion(Array(domain.utf8)) == needed)
    }

    @Test("input past the limit is refused unconverted")
    func tooLong() {
        let long = String(repeating: "公", count: IDNA.maxInputBytes / 3 + 1) + ".cn"
        #expect(IDNA.asciiDomain(long) == nil)
    }
}
