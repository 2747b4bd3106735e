import Glibc

/// The Public Suffix List (publicsuffix.org), read from Debian's `publicsuffix` package, to find
/// a domain's organizational domain for relaxed alignment (RFC 7489 §3.2).
public struct PublicSuffixList: Sendable {
    /// Where Debian installs the list.
    public static let defaultPath = "/usr/share/publicsuffix/public_suffix_list.dat"
    /// The list is about 230 KB; refuse anything far larger.
    public static let maxFileSize = 4 << 20

    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>

    public init(text: String) {
        var rules = Set<String>(), wildcards = Set<String>(), exceptions = Set<String>()
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            // "Each line is only read up to the first whitespace" (publicsuffix.org/list).
            guard let token = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).first,
                  !token.hasPrefix("//") else { continue }
            let rule = token.lowercased()
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                rules.insert(rule)
            }
        }
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
    }

    /// Loads the list from `path`; nil when it is missing or unreadable.
    public static func load(path: String = defaultPath) -> PublicSuffixList? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= maxFileSize {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        return PublicSuffixList(text: String(decoding: bytes, as: UTF8.self))
    }

    /// The registrable ("organizational") domain: the public suffix plus one label, or nil when
    /// the domain is itself a public suffix. Unlisted TLDs count as one-label suffixes (the
    /// list's default rule `*`).
    public func organizationalDomain(of domain: String) -> String? {
        let labels = domain.lowercased().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !labels.isEmpty, !labels.contains(where: \.isEmpty) else { return nil }
        var suffixLength = 1
        for start in 0..<labels.count {
            let candidate = labels[start...].joined(separator: ".")
            if exceptions.contains(candidate) {
                suffixLength = labels.count - start - 1
                break
            }
            if rules.contains(candidate) {
                suffixLength = labels.count - start
                break
            }
            if start + 1 < labels.count, wildcards.contains(labels[(start + 1)...].joined(separator: ".")) {
                suffixLength = labels.count - start
                break
            }
        }
        guard labels.count > suffixLength else { return nil }
        return labels[(labels.count - suffixLength - 1)...].joined(separator: ".")
    }
}
