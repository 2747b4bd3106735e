// swift-tools-version:6.1
import PackageDescription

/// libFuzzer targets, one executable per entry point (docs/RELIABILITY.md). Kept out of the
/// main package so `swift build` and `swift test` never see fuzzer flags. Build and run with
/// `scripts/fuzz`, which passes `--sanitize=fuzzer --sanitize=address`.
///
/// The targets reach internal parsers through `@testable import`, so they build in the debug
/// configuration (which compiles the library targets with testing enabled).
let targets = [
    "fuzz-message", "fuzz-header-fields", "fuzz-encoded-words", "fuzz-transfer-encodings",
    "fuzz-charsets", "fuzz-dkim-tags", "fuzz-dkim-key-record", "fuzz-canonicalization",
    "fuzz-json", "fuzz-jsonld", "fuzz-microdata", "fuzz-iso8601", "fuzz-sender-dates", "fuzz-keys-file", "fuzz-skeleton", "fuzz-scripts",
    "fuzz-signed-view", "fuzz-authentication-results", "fuzz-header-strip", "fuzz-caldav", "fuzz-feed", "fuzz-tzif", "fuzz-posix-tz", "fuzz-toml",
    "fuzz-zone-placement", "fuzz-zip", "fuzz-bcbp", "fuzz-pkpass", "fuzz-icalendar", "fuzz-arc", "fuzz-mailto",
    "fuzz-arc-signed-view", "fuzz-icalendar-text", "fuzz-calendar-merge", "fuzz-rail-ticket",
    "fuzz-document-output",
]
/// Targets of the time zone library, which need nothing else of the package.
let timeZoneTargets: Set = ["fuzz-tzif", "fuzz-posix-tz"]
/// Targets of Wallet passes: the zip reader, the bar code, the pass.
let passTargets: Set = ["fuzz-zip", "fuzz-bcbp", "fuzz-pkpass"]
/// Targets of rail ticket bar codes, which need the rail ticket library and JSON only.
let railTargets: Set = ["fuzz-rail-ticket"]
/// The document reader's output, read by the Documents library alone.
let documentTargets: Set = ["fuzz-document-output"]
/// Targets of the calendar reader, which needs the time zone library only.
let calendarTargets: Set = ["fuzz-icalendar", "fuzz-mailto"]
/// Targets of the iCalendar writer, read back by the calendar reader.
let calendarWriterTargets: Set = ["fuzz-icalendar-text", "fuzz-calendar-merge"]
/// Targets of the filter's output stage, which lives in the Pipeline library.
let pipelineTargets: Set = ["fuzz-authentication-results", "fuzz-header-strip"]

let package = Package(
    name: "ReservoirFuzz",
    dependencies: [.package(name: "Reservoir", path: "..")],
    targets: targets.map { name in
        .executableTarget(
            name: name,
            dependencies: timeZoneTargets.contains(name)
                ? [.product(name: "TimeZones", package: "Reservoir")]
                : passTargets.contains(name)
                    ? [
                        .product(name: "Zip", package: "Reservoir"), .product(name: "BCBP", package: "Reservoir"),
                        .product(name: "WalletPass", package: "Reservoir"), .product(name: "JSON", package: "Reservoir"),
                    ]
                    : documentTargets.contains(name)
                    ? [.product(name: "Documents", package: "Reservoir")]
                    : railTargets.contains(name)
                    ? [.product(name: "RailTicket", package: "Reservoir"), .product(name: "JSON", package: "Reservoir")]
                    : calendarTargets.contains(name)
                    ? [.product(name: "ICalendarReading", package: "Reservoir")]
                    : calendarWriterTargets.contains(name)
                    ? [
                        .product(name: "ICalendar", package: "Reservoir"), .product(name: "EventStore", package: "Reservoir"),
                        .product(name: "ICalendarReading", package: "Reservoir"),
                    ]
                    : [
                        .product(name: "MIME", package: "Reservoir"), .product(name: "DKIM", package: "Reservoir"),
                        .product(name: "ARC", package: "Reservoir"), .product(name: "DNS", package: "Reservoir"), .product(name: "Markup", package: "Reservoir"),
                        .product(name: "Reservations", package: "Reservoir"), .product(name: "Trust", package: "Reservoir"),
                        .product(name: "JSON", package: "Reservoir"), .product(name: "CalDAV", package: "Reservoir"),
                        .product(name: "Feed", package: "Reservoir"), .product(name: "TOML", package: "Reservoir"),
                        .product(name: "TimeZones", package: "Reservoir"),
                    ]
                        + (pipelineTargets.contains(name)
                            ? [.product(name: "Output", package: "Reservoir"), .product(name: "Pipeline", package: "Reservoir")] : []),
            path: "Sources/\(name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    }
)
