/// `String.contains(_:)` for the stores: the same answer, characters compared one by one, without
/// _StringProcessing. That library (where `contains` lives) and the regex parser it brings
/// were the largest block of start-up relocations in the filter hook, which uses no regex.
package enum CharacterSearch {
    /// Whether `needle` (not empty) occurs in `text` as a run of whole characters: a slash
    /// that a combining mark is part of is not a slash.
    package static func contains(_ text: String, _ needle: String) -> Bool {
        let needle = Array(needle)
        guard !needle.isEmpty else { return false }
        let characters = Array(text)
        guard characters.count >= needle.count else { return false }
        for start in 0...(characters.count - needle.count)
        where characters[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}
