/// A command name as typed, and the command it most likely meant: `reservoir sacn` is told
/// "did you mean scan", not that it has unexpected arguments.
enum CommandName {
    /// Two edits at most: a letter added, removed or changed, or two neighbours swapped.
    static let maximumEdits = 2

    /// The command `typed` most likely meant: the nearest within ``maximumEdits`` (the first
    /// of equals, in the order given), else the only one it begins; nil when none is near.
    static func suggestion(for typed: String, among names: [String]) -> String? {
        let scored = names.map { (name: $0, edits: distance(typed.lowercased(), $0)) }.filter { $0.edits <= maximumEdits }
        if let best = scored.min(by: { $0.edits < $1.edits }) { return best.name }
        let extended = names.filter { $0.hasPrefix(typed.lowercased()) }
        return typed.count >= 2 && extended.count == 1 ? extended[0] : nil
    }

    /// The error for a first word that is no command.
    static func unknown(_ typed: String, among names: [String]) -> String {
        // Printable ASCII only: the word is the user's, and goes to their terminal.
        let shown = String(String.UnicodeScalarView(typed.unicodeScalars.prefix(40).map { $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }))
        guard let meant = suggestion(for: typed, among: names) else { return "no command \(shown); see 'reservoir help'" }
        return "no command \(shown); did you mean \(meant)? (see 'reservoir help')"
    }

    /// Optimal string alignment distance (Damerau–Levenshtein without repeated edits of one
    /// substring), on characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a)
        let y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }
}
