/// A count and its noun in the number the count needs (`1 element`, `3 elements`), for the
/// sentences of notes and summaries.
public enum EnglishCount {
    /// `count` and `noun`, the noun made plural by `plural` or, without it, by adding `s`.
    public static func of(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }
}
