// swift-tools-version:6.1
import PackageDescription

/// Settings every Swift target shares (the swift-log convention): explicit `any`,
/// imports visible only where declared, and internal imports unless a type is re-exported.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Reservoir",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "reservoir", targets: ["reservoir"]),
        .executable(name: "reservoir-filter", targets: ["reservoir-filter"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
        .library(name: "Output", targets: ["Output"]),
        // The stages on their own, for the fuzz targets in Fuzz/ and for embedding.
        .library(name: "Mailbox", targets: ["Mailbox"]),
        .library(name: "MIME", targets: ["MIME"]),
        .library(name: "DNS", targets: ["DNS"]),
        .library(name: "DKIM", targets: ["DKIM"]),
        .library(name: "JSON", targets: ["JSON"]),
        .library(name: "Markup", targets: ["Markup"]),
        .library(name: "Reservations", targets: ["Reservations"]),
        .library(name: "Trust", targets: ["Trust"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries of the field, each wrapped by a module map and a shim only.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibIDN2", path: "Sources/CLibIDN2", pkgConfig: "libidn2",
                       providers: [.apt(["libidn2-dev"])]),
        .systemLibrary(name: "CResolv", path: "Sources/CResolv"),
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // libpq's declarations only; CLibPQLoader defines the functions and loads libpq.so.5 on
        // first use, so processes that never touch PostgreSQL never load it.
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),
        .target(name: "CLibPQLoader", dependencies: ["CLibPQ"], linkerSettings: [.linkedLibrary("dl")]),

        // One library target per pipeline stage; dependencies point down the pipeline.
        .target(name: "MIME", swiftSettings: strictSettings),
        // Where messages come from: Maildir, mbox, files, stdin, and the incremental scan's state.
        .target(name: "Mailbox", dependencies: ["MIME"], swiftSettings: strictSettings),
        .target(name: "DNS", dependencies: ["CResolv"], swiftSettings: strictSettings),
        .target(name: "DKIM", dependencies: ["MIME", "DNS", "COpenSSL"], swiftSettings: strictSettings),
        // JSON values, their writer and the tolerant reader: used by Markup, Reservations and the output.
        .target(name: "JSON", swiftSettings: strictSettings),
        .target(name: "Markup", dependencies: ["JSON", "CLibXML2"], swiftSettings: strictSettings),
        .target(name: "Reservations", dependencies: ["Markup", "JSON"], swiftSettings: strictSettings),
        .target(name: "EventStore", dependencies: ["CSQLite"], swiftSettings: strictSettings),
        .target(name: "EventStorePostgres", dependencies: ["EventStore", "CLibPQ", "CLibPQLoader"], swiftSettings: strictSettings),
        .target(name: "ICalendar", dependencies: ["EventStore"], swiftSettings: strictSettings),
        // Who may put events on the calendar: the policy and the signed view it reads.
        .target(name: "Trust", dependencies: ["MIME", "DKIM", "CLibIDN2"], swiftSettings: strictSettings),
        .target(name: "Pipeline",
                dependencies: ["Mailbox", "MIME", "DNS", "DKIM", "Markup", "JSON", "Reservations", "EventStore", "Trust"],
                swiftSettings: strictSettings),
        // What the programs share without the argument parser: the pipeline built from plain
        // settings, output and exit codes, the filter hook.
        // What the programs show: banners, JSON, the filter's fields (RFC 8601 parse and format).
        .target(name: "Output", dependencies: ["Pipeline", "Mailbox", "Trust", "MIME", "DKIM", "JSON", "Markup", "Reservations", "EventStore"],
                swiftSettings: strictSettings),
        .target(name: "CommandCore", dependencies: ["Pipeline", "Output", "Mailbox", "MIME", "DNS", "EventStore", "Trust", "EventStorePostgres"], swiftSettings: strictSettings),
        .executableTarget(name: "reservoir",
                          dependencies: ["CommandCore", "Pipeline", "Output", "Mailbox", "MIME", "DKIM", "EventStore", "ICalendar", "CMalloc",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          swiftSettings: strictSettings),
        // The filter hook alone, for MTAs that start a process per message: without the
        // argument parser and Foundation it loads in less time (docs/PERFORMANCE.md).
        .executableTarget(name: "reservoir-filter", dependencies: ["CommandCore"],
                          swiftSettings: strictSettings + [.unsafeFlags(["-Xfrontend", "-disable-dynamic-actor-isolation"])]),
        // Stage benchmarks for docs/PERFORMANCE.md (scripts/bench).
        .executableTarget(name: "reservoir-bench", dependencies: ["Mailbox", "MIME", "DNS", "DKIM"],
                          swiftSettings: strictSettings),

        .testTarget(name: "MailboxTests", dependencies: ["Mailbox", "MIME"], swiftSettings: strictSettings),
        .testTarget(name: "MIMETests", dependencies: ["MIME"], swiftSettings: strictSettings),
        .testTarget(name: "MIMEConformanceTests", dependencies: ["MIME"], swiftSettings: strictSettings),
        .testTarget(name: "DNSTests", dependencies: ["DNS"], swiftSettings: strictSettings),
        .testTarget(name: "DKIMTests", dependencies: ["DKIM", "MIME", "DNS", "COpenSSL"], swiftSettings: strictSettings),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strictSettings),
        .testTarget(name: "MarkupTests", dependencies: ["Markup", "JSON"], exclude: ["Fixtures"], swiftSettings: strictSettings),
        .testTarget(name: "ReservationsTests", dependencies: ["Reservations", "Markup", "JSON"], swiftSettings: strictSettings),
        .testTarget(name: "EventStoreTests", dependencies: ["EventStore"], swiftSettings: strictSettings),
        // A throwaway PostgreSQL server for the tests of both the store and the CLI.
        .target(name: "PostgresTestSupport", path: "Tests/PostgresTestSupport", swiftSettings: strictSettings),
        .testTarget(name: "EventStorePostgresTests", dependencies: ["EventStorePostgres", "EventStore", "PostgresTestSupport"],
                    swiftSettings: strictSettings),
        .testTarget(name: "ICalendarTests", dependencies: ["ICalendar", "EventStore"], swiftSettings: strictSettings),
        .testTarget(name: "TrustTests", dependencies: ["Trust", "MIME", "DKIM"], swiftSettings: strictSettings),
        .target(name: "PipelineTestSupport", dependencies: ["Pipeline", "Trust", "Mailbox", "MIME", "DNS", "EventStore"],
                path: "Tests/PipelineTestSupport", swiftSettings: strictSettings),
        .testTarget(name: "OutputTests", dependencies: ["Output", "Pipeline", "PipelineTestSupport", "Trust", "Mailbox", "MIME", "DKIM", "JSON",
                                                        "Markup", "Reservations", "EventStore"], swiftSettings: strictSettings),
        .testTarget(name: "PipelineTests", dependencies: ["PipelineTestSupport", "Pipeline", "Trust", "Mailbox", "MIME", "DNS", "DKIM", "Markup", "Reservations", "EventStore", "JSON"],
                    exclude: ["Attacks"],
                    swiftSettings: strictSettings),
        .testTarget(name: "CommandCoreTests", dependencies: ["CommandCore", "Pipeline", "Trust"], swiftSettings: strictSettings),
        .testTarget(name: "ArchitectureTests", swiftSettings: strictSettings),
        .testTarget(name: "ReservoirCLITests", dependencies: ["reservoir", "reservoir-filter", "PostgresTestSupport"], exclude: ["Extraction"],
                    swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
