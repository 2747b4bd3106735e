#if canImport(Glibc)
    import Glibc
#endif

/// Whether a test that needs something from outside the package — a peer program, a corpus, a
/// system file — runs. Where the component is present the test runs; where it is absent the
/// test is skipped with its reason (`.enabled(if: Requirement.met(…), "reason")`), except under
/// `CI=true`: `.ci/run` installs what the tests need, so there an absent component is a missing
/// install step, and the test runs and fails on it (the test's own `#require`).
public enum Requirement {
    /// Whether the tests run under CI (`CI=true`, as `.ci/run` is started).
    public static let inCI: Bool = getenv("CI").map { String(cString: $0) } == "true"

    /// Whether a test needing a component that is `present` runs.
    public static func met(_ present: Bool) -> Bool { present || inCI }
}
