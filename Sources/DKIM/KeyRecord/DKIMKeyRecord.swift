/// A DKIM key record (RFC 6376 §3.6.1), read from one TXT record.
struct DKIMKeyRecord {
    enum ParseError: Swift.Error, Equatable, CustomStringConvertible {
        case tagList(TagList.ParseError)
        case versionNotFirst
        case unsupportedVersion(String)
        case missingKey

        var description: String {
            switch self {
            case .tagList(let error): "malformed key record: \(error)"
            case .versionNotFirst: "key record v= is not the first tag (RFC 6376 §3.6.1)"
            case .unsupportedVersion(let v): "key record version \(v) is not DKIM1"
            case .missingKey: "key record has no p= tag"
            }
        }
    }

    /// `k=`, lowercased; `rsa` when absent.
    let keyType: String
    /// `h=`: acceptable hash algorithms, nil when any is allowed.
    let hashAlgorithms: [String]?
    /// `s=`: service types; `*` when absent.
    let serviceTypes: [String]
    /// `t=` flags.
    let flags: [String]
    /// `p=` with white space removed; empty means revoked.
    let publicKeyBase64: String

    var testing: Bool { flags.contains("y") }
    var strictIdentity: Bool { flags.contains("s") }

    init(_ text: String) throws(ParseError) {
        let tags: TagList
        do { tags = try TagList(parsing: text) } catch { throw .tagList(error) }
        if let version = tags["v"] {
            guard tags.tags.first?.name == "v" else { throw .versionNotFirst }
            guard version == "DKIM1" else { throw .unsupportedVersion(version) }
        }
        guard let key = tags["p"] else { throw .missingKey }
        func list(_ value: String?) -> [String]? {
            value.map { $0.split(separator: ":").map { TagList.withoutWhitespace(String($0)).lowercased() } }
        }
        keyType = (tags["k"].map { TagList.withoutWhitespace($0) } ?? "rsa").lowercased()
        hashAlgorithms = list(tags["h"])
        serviceTypes = list(tags["s"]) ?? ["*"]
        flags = list(tags["t"]) ?? []
        publicKeyBase64 = TagList.withoutWhitespace(key)
    }
}
