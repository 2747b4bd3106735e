public import EventStore

/// What `--token-file` holds: one bare token (the feed of the server's one account, as
/// before), or one `TOKEN ACCOUNT` line per account of a site (docs/SITE.md, "The feed and the
/// page"): each token opens its account's feed and page, and no request can name another.
public enum TokenFile: Sendable, Equatable {
    case single(AccessToken)
    case accounts([AccountToken])

    /// Most lines a file may hold, one an account.
    public static let maximumLines = 100_000

    /// Why a token file cannot be used; `line` counts from 1.
    public enum Refusal: Error, Sendable, Equatable {
        /// The one bare token is no token.
        case token(AccessToken.Refusal)
        /// A line's token is no token.
        case lineToken(line: Int, AccessToken.Refusal)
        /// A line that is not `TOKEN ACCOUNT`, or whose account is no mailbox address.
        case malformedLine(line: Int)
        /// A token given twice: which account it opens would depend on the order.
        case repeatedToken(line: Int)
        case tooManyLines
    }

    /// Reads the file's text. One line holding one word is a bare token; otherwise every line
    /// that is not blank or a `#` comment is `TOKEN ACCOUNT`, the account read by `account`
    /// (nil: not an address).
    public static func read(fileText bytes: [UInt8], account: (String) -> Account?) -> Result<TokenFile, Refusal> {
        var lines: [(number: Int, words: [ArraySlice<UInt8>])] = []
        var number = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            let words = line.split { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            if words.isEmpty || words[0].first == UInt8(ascii: "#") { continue }
            lines.append((number, words))
            if lines.count > maximumLines { return .failure(.tooManyLines) }
        }
        if lines.count <= 1, lines.first.map({ $0.words.count == 1 }) ?? true {
            switch AccessToken.read(fileText: Array(lines.first?.words.first ?? [])) {
            case .success(let token): return .success(.single(token))
            case .failure(let refusal): return .failure(.token(refusal))
            }
        }
        var entries: [AccountToken] = []
        var seen = Set<[UInt8]>()
        for (line, words) in lines {
            guard words.count == 2, let address = String(validating: words[1], as: UTF8.self), let owner = account(address), !owner.isImplicit
            else { return .failure(.malformedLine(line: line)) }
            let token: AccessToken
            switch AccessToken.read(fileText: Array(words[0])) {
            case .success(let read): token = read
            case .failure(let refusal): return .failure(.lineToken(line: line, refusal))
            }
            guard seen.insert(token.bytes).inserted else { return .failure(.repeatedToken(line: line)) }
            entries.append(AccountToken(token: token, account: owner))
        }
        return .success(.accounts(entries))
    }
}

/// One `TOKEN ACCOUNT` line: the token opens that account's feed and page only.
public struct AccountToken: Sendable, Equatable {
    public let token: AccessToken
    public let account: Account

    public init(token: AccessToken, account: Account) {
        self.token = token
        self.account = account
    }
}
