import Glibc
import ReservoirBase

/// The Public Suffix List (publicsuffix.org), read from Debian's `publicsuffix` package, to find
/// a domain's organizational domain for relaxed alignment (RFC 7489 §3.2).
///
/// The file is read and indexed on the first lookup only: most messages are signed by their
/// From domain exactly and need no lookup, and a filter hook must not pay for it per message.
public final class PublicSuffixList: @unchecked Sendable {
    /// Where Debian installs the list.
    public static let defaultPath = "/usr/share/publicsuffix/public_suffix_list.dat"
    /// The list is about 230 KB; refuse anything far larger.
    public static let maxFileSize = 4 << 20

    struct Rules {
        var rules = Set<String>(), wildcards = Set<String>(), exceptions = Set<String>()
    }

    private let source: () -> [UInt8]
    // Guards `loaded`: the list is shared by the scan's worker pipelines.
    private var lock = pthread_mutex_t()
    private var loaded: Rules?

    public convenience init(text: String) {
        self.init { Array(text.utf8) }
    }

    private init(source: @escaping @Sendable () -> [UInt8]) {
        self.source = source
        pthread_mutex_init(&lock, nil)
    }

    deinit { pthread_mutex_destroy(&lock) }

    /// The list at `path`, read when first needed; nil when it is missing or unreadable.
    public static func load(path: String = defaultPath) -> PublicSuffixList? {
        guard access(path, R_OK) == 0 else { return nil }
        return PublicSuffixList { read(path) }
    }

    /// The list's bytes, at most ``maxFileSize``; none when it cannot be read.
    static func read(_ path: String) -> [UInt8] {
        (try? FileBytes.read(path, limit: maxFileSize)) ?? []
    }

    /// Indexes the list, working on bytes. Rules are kept as A-labels: the list writes its
    /// internationalized suffixes in Unicode (`公司.cn`), and names are looked up in their
    /// ASCII form (``IDNA``). A rule libidn2 refuses is kept as written, matching nothing.
    static func parse(_ bytes: [UInt8]) -> Rules {
        var result = Rules()
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            // "Each line is only read up to the first whitespace" (publicsuffix.org/list).
            var tokenEnd = lineStart
            while tokenEnd < lineEnd, bytes[tokenEnd] != 0x20, bytes[tokenEnd] != 0x09, bytes[tokenEnd] != 0x0D { tokenEnd += 1 }
            let token = bytes[lineStart..<tokenEnd]
            if !token.isEmpty, !token.starts(with: [0x2F, 0x2F]) {
                let rule = String(decoding: token, as: UTF8.self)
                if rule.hasPrefix("!") {
                    result.exceptions.insert(asciiRule(rule.dropFirst()))
                } else if rule.hasPrefix("*.") {
                    result.wildcards.insert(asciiRule(rule.dropFirst(2)))
                } else {
                    result.rules.insert(asciiRule(Substring(rule)))
                }
            }
            lineStart = lineEnd + 1
        }
        return result
    }

    /// A rule's name (after its `!` or `*.`) in A-labels, or lowercased as written when
    /// libidn2 refuses it.
    static func asciiRule(_ name: Substring) -> String {
        IDNA.asciiDomain(String(name)) ?? name.lowercased()
    }

    private func rules() -> Rules {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        if let loaded { return loaded }
        let parsed = Self.parse(source())
        loaded = parsed
        return parsed
    }

    /// The registrable ("organizational") domain in A-labels: the public suffix plus one label,
    /// or nil when the domain is itself a public suffix or libidn2 refuses it (``IDNA``). A
    /// domain may come in U-labels or A-labels. Unlisted TLDs count as one-label suffixes (the
    /// list's default rule `*`).
    public func organizationalDomain(of domain: String) -> String? {
        guard let ascii = IDNA.asciiDomain(domain) else { return nil }
        let list = rules()
        let (rules, wildcards, exceptions) = (list.rules, list.wildcards, list.exceptions)
        let labels = ascii.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
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
