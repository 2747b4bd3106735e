// swift-tools-version:6.1
import PackageDescription

/// Settings every Swift target shares, applied to each one at the end of this file (the
/// swift-log convention): explicit `any`, imports visible only where declared, and internal
/// imports unless a type is re-exported.
let sharedSwiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Reservoir",
    products: [
        .executable(name: "reservoir", targets: ["reservoir"]),
        .executable(name: "reservoir-filter", targets: ["reservoir-filter"]),
        .executable(name: "reservoir-serve", targets: ["reservoir-serve"]),
        .executable(name: "reservoir-milter", targets: ["reservoir-milter"]),
        .executable(name: "reservoir-document", targets: ["reservoir-document"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
        .library(name: "Output", targets: ["Output"]),
        // The stages on their own, for the fuzz targets in Fuzz/ and for embedding.
        .library(name: "Mailbox", targets: ["Mailbox"]),
        .library(name: "MIME", targets: ["MIME"]),
        .library(name: "DNS", targets: ["DNS"]),
        .library(name: "DKIM", targets: ["DKIM"]),
        .library(name: "ARC", targets: ["ARC"]),
        .library(name: "JSON", targets: ["JSON"]),
        .library(name: "Markup", targets: ["Markup"]),
        .library(name: "Reservations", targets: ["Reservations"]),
        .library(name: "Trust", targets: ["Trust"]),
        .library(name: "CalDAV", targets: ["CalDAV"]),
        .library(name: "Feed", targets: ["Feed"]),
        .library(name: "TimeZones", targets: ["TimeZones"]),
        .library(name: "ICalendarReading", targets: ["ICalendarReading"]),
        .library(name: "ICalendar", targets: ["ICalendar"]),
        .library(name: "EventStore", targets: ["EventStore"]),
        .library(name: "TOML", targets: ["TOML"]),
        .library(name: "Zip", targets: ["Zip"]),
        .library(name: "BCBP", targets: ["BCBP"]),
        .library(name: "WalletPass", targets: ["WalletPass"]),
        .library(name: "RailTicket", targets: ["RailTicket"]),
        .library(name: "Documents", targets: ["Documents"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Without its default traits: `FullFoundation` makes Hummingbird import full Foundation
        // (for URL-encoded forms, which the feed never reads), and with it FoundationICU's 34 MB
        // data table; `ConfigurationSupport` adds swift-configuration, which serve does not use.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: []),
        // Hummingbird's own field types (HTTPField), named where the program builds responses.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // The metrics registry and its text exposition, for `--metrics` (docs/ARCHITECTURE.md).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // C libraries of the field, each wrapped by a module map and a shim only.
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLibIDN2", path: "Sources/CLibIDN2", pkgConfig: "libidn2",
            providers: [.apt(["libidn2-dev"])]),
        .systemLibrary(name: "CResolv", path: "Sources/CResolv"),
        // zlib's inflate for the zip reader (zlib1g-dev, which libssl-dev already needs).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // libmilter, the milter protocol library of Sendmail that OpenDKIM and OpenDMARC use;
        // linked by `reservoir-milter` alone.
        .systemLibrary(
            name: "CMilter", path: "Sources/CMilter", pkgConfig: "milter",
            providers: [.apt(["libmilter-dev"])]),
        // libpq's declarations only; CLibPQLoader defines the functions and loads libpq.so.5 on
        // first use, so processes that never touch PostgreSQL never load it.
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),
        .target(name: "CLibPQLoader", dependencies: ["CLibPQ"], linkerSettings: [.linkedLibrary("dl")]),
        // libcurl's declarations only; CLibCurlLoader defines the functions and loads
        // libcurl.so.4 on first use, so processes that never push to a calendar never load it.
        // The document reader's libraries — poppler-glib with cairo, zxing-cpp, libjpeg, giflib —
        // linked by `reservoir-document` alone (docs/ARCHITECTURE.md).
        .systemLibrary(name: "CPoppler", path: "Sources/CPoppler", pkgConfig: "poppler-glib", providers: [.apt(["libpoppler-glib-dev"])]),
        .systemLibrary(name: "CZXing", path: "Sources/CZXing", pkgConfig: "zxing", providers: [.apt(["libzxing-dev", "libjpeg-dev", "libgif-dev"])]),
        .target(
            name: "CDocumentScan", dependencies: ["CPoppler", "CZXing"], cxxSettings: [.define("ZX_USE_UTF8")],
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("gif")]),
        .executableTarget(name: "reservoir-document", dependencies: ["CDocumentScan", "ReservoirBase"]),
        // Runs reservoir-document as a child and reads its answer; links none of its libraries.
        .target(name: "Documents", dependencies: ["ReservoirBase"]),
        .systemLibrary(name: "CLibCurl", path: "Sources/CLibCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CLibCurlLoader", dependencies: ["CLibCurl"], linkerSettings: [.linkedLibrary("dl")]),

        // Below the stages, depending on nothing but the C library: civil-time arithmetic,
        // ASCII byte rules, whole-file reading.
        .target(name: "ReservoirBase"),

        // Time zones for wall-clock times: TZif files and their POSIX TZ rules (RFC 8536), RFC 5545
        // VTIMEZONE text, and the airport and country tables that name a place's zone.
        .target(name: "TimeZones", dependencies: ["ReservoirBase"], exclude: ["Resources/airportsdata-LICENSE.txt"]),

        // One library target per pipeline stage; dependencies point down the pipeline.
        .target(name: "MIME", dependencies: ["ReservoirBase"]),
        // Where messages come from: Maildir, mbox, files, stdin, and the incremental scan's state.
        .target(name: "Mailbox", dependencies: ["ReservoirBase", "MIME"]),
        .target(name: "DNS", dependencies: ["ReservoirBase", "CResolv"]),
        .target(name: "DKIM", dependencies: ["ReservoirBase", "MIME", "DNS", "COpenSSL"]),
        // ARC chains (RFC 8617) validated with DKIM's verification of each signature.
        .target(name: "ARC", dependencies: ["ReservoirBase", "MIME", "DKIM"]),
        // JSON values, their writer and the tolerant reader: used by Markup, Reservations and the output.
        .target(name: "JSON"),
        // The configuration file's reader: TOML 1.0.0, on the standard library alone.
        .target(name: "TOML"),
        .target(name: "Markup", dependencies: ["ReservoirBase", "JSON", "CLibXML2"]),
        // Zip archives read from memory: the central directory, stored and deflated entries, limits.
        .target(name: "Zip", dependencies: ["CZlib"]),
        // IATA Resolution 792 boarding pass bar codes.
        .target(name: "BCBP", dependencies: ["ReservoirBase"]),
        // Apple Wallet passes: the archive, the manifest, the CMS signature, the reservations.
        .target(name: "WalletPass", dependencies: ["ReservoirBase", "Zip", "BCBP", "JSON", "COpenSSL"]),
        // UIC 918.3 rail ticket bar codes: the container, its records, the ERA FCB (unaligned
        // PER), the railway's DSA/ECDSA signature against the UIC key list, the reservations.
        .target(name: "RailTicket", dependencies: ["ReservoirBase", "CZlib", "COpenSSL", "CLibXML2", "JSON"]),
        // The reader of calendar objects in mail (RFC 5545): content lines, components, VEVENTs
        // with their times placed through TimeZones. Below Reservations, which makes bookings of them.
        .target(name: "ICalendarReading", dependencies: ["ReservoirBase", "TimeZones"]),
        .target(name: "Reservations", dependencies: ["ReservoirBase", "Markup", "JSON", "TimeZones", "ICalendarReading"]),
        .target(name: "EventStore", dependencies: ["ReservoirBase", "CSQLite"]),
        .target(name: "EventStorePostgres", dependencies: ["ReservoirBase", "EventStore", "CLibPQ", "CLibPQLoader"]),
        .target(name: "ICalendar", dependencies: ["ReservoirBase", "EventStore", "TimeZones", "ICalendarReading"]),
        // Calendar destinations: pushing stored events to CalDAV collections and vdirs, the outbox.
        .target(name: "Delivery", dependencies: ["ReservoirBase", "EventStore", "ICalendar", "CalDAV"]),
        // The libcurl layer CalDAV and IMAP share: the easy handle that owns its C resources,
        // header lists, the body a transfer collects, and the netrc file's checks.
        .target(name: "CurlTransport", dependencies: ["ReservoirBase", "CLibCurl", "CLibCurlLoader"]),
        // Calendar delivery's transport: PUT, GET and DELETE of calendar object resources
        // (RFC 4791) through libcurl, loaded on first use.
        .target(name: "CalDAV", dependencies: ["ReservoirBase", "CLibCurl", "CLibCurlLoader", "CurlTransport"]),
        // `reservoir watch`'s transport: a read-only IMAP session (EXAMINE, UID FETCH BODY.PEEK[])
        // over a TLS connection libcurl makes and logs in, loaded on first use.
        .target(name: "IMAP", dependencies: ["ReservoirBase", "CLibCurl", "CLibCurlLoader", "CurlTransport"]),
        // Who may put events on the calendar: the policy and the signed view it reads.
        .target(name: "Trust", dependencies: ["ReservoirBase", "MIME", "DKIM", "ARC", "CLibIDN2", "WalletPass"]),
        // The subscription feed and the page of upcoming reservations, without an HTTP server:
        // entity tags, conditional requests, access checks, netrc, the HTML page.
        .target(name: "Feed", dependencies: ["ReservoirBase", "EventStore", "ICalendar", "COpenSSL"]),
        .target(
            name: "Pipeline",
            dependencies: [
                "Mailbox", "MIME", "DNS", "DKIM", "ARC", "Markup", "JSON", "ICalendarReading", "Reservations", "EventStore", "Trust", "WalletPass",
                "Zip", "ReservoirBase", "Documents", "RailTicket", "BCBP",
            ]),
        // What the programs share without the argument parser: the pipeline built from plain
        // settings, output and exit codes, the filter hook.
        // What the programs show: banners, JSON, the filter's fields (RFC 8601 parse and format).
        .target(
            name: "Output",
            dependencies: [
                "ReservoirBase", "Pipeline", "Mailbox", "Trust", "MIME", "DKIM", "JSON", "Markup", "Reservations", "EventStore", "WalletPass",
            ]),
        .target(
            name: "CommandCore",
            dependencies: [
                "ReservoirBase", "Pipeline", "Output", "Mailbox", "MIME", "DNS", "EventStore", "Trust", "EventStorePostgres", "Delivery",
                "TOML", "WalletPass", "ICalendar", "DKIM",
            ]),
        // The long-running programs' log lines (sd-daemon priorities, syslog) and their shared
        // options, on the C library alone.
        .target(name: "ServiceLog"),
        // `--metrics`: the Prometheus registry and a small HTTP responder for /metrics and
        // /healthz; linked by the milter, `reservoir` (for watch) and serve, never by the hook.
        .target(
            name: "Telemetry",
            dependencies: ["ServiceLog", .product(name: "Prometheus", package: "swift-prometheus")]),
        .executableTarget(
            name: "reservoir",
            dependencies: [
                "CommandCore", "Pipeline", "Output", "Mailbox", "MIME", "DKIM", "EventStore", "ICalendar", "Delivery", "JSON", "CMalloc", "Feed",
                "CalDAV", "Trust", "ReservoirBase", "ServiceLog", "Telemetry",
                "IMAP", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The filter hook alone, for MTAs that start a process per message: without the
        // argument parser and Foundation it loads in less time (docs/PERFORMANCE.md).
        .executableTarget(
            name: "reservoir-filter", dependencies: ["CommandCore"],
            swiftSettings: [.unsafeFlags(["-Xfrontend", "-disable-dynamic-actor-isolation"])]),
        // `reservoir serve`: the feed and the page over HTTP (Hummingbird), a program of its own so
        // that neither `reservoir` nor the hook links an HTTP server.
        .executableTarget(
            name: "reservoir-serve",
            dependencies: [
                "CommandCore", "EventStore", "EventStorePostgres", "Feed", "JSON", "ReservoirBase", "ServiceLog", "Telemetry",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        // `reservoir milter`: one process for a whole site, through libmilter, a program of its
        // own so that neither `reservoir` nor the hook links libmilter and its threads.
        .executableTarget(name: "reservoir-milter", dependencies: ["CommandCore", "CMilter", "ServiceLog", "Telemetry"]),
        // Stage benchmarks for docs/PERFORMANCE.md (scripts/bench).
        .executableTarget(name: "reservoir-bench", dependencies: ["Mailbox", "MIME", "DNS", "DKIM"]),

        .testTarget(name: "ReservoirBaseTests", dependencies: ["ReservoirBase", "TestRequirements"]),
        .testTarget(name: "MailboxTests", dependencies: ["Mailbox", "MIME", "TestRequirements"]),
        .testTarget(name: "MIMETests", dependencies: ["ReservoirBase", "MIME", "TestRequirements"]),
        .testTarget(name: "MIMEConformanceTests", dependencies: ["MIME", "TestRequirements"]),
        .testTarget(name: "DNSTests", dependencies: ["DNS", "TestRequirements"]),
        // What a test needs from outside the package: skipped without it, failed under CI=true.
        .target(name: "TestRequirements", path: "Tests/TestRequirements"),
        .testTarget(name: "DKIMTests", dependencies: ["DKIM", "MIME", "DNS", "COpenSSL", "TestRequirements"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "TOMLTests", dependencies: ["TOML", "TestRequirements"]),
        .testTarget(name: "MarkupTests", dependencies: ["Markup", "JSON"], exclude: ["Fixtures"]),
        .testTarget(name: "ReservationsTests", dependencies: ["Reservations", "Markup", "JSON"]),
        .testTarget(name: "EventStoreTests", dependencies: ["ReservoirBase", "EventStore"]),
        // A throwaway PostgreSQL server for the tests of both the store and the CLI.
        .target(name: "PostgresTestSupport", path: "Tests/PostgresTestSupport"),
        .testTarget(name: "EventStorePostgresTests", dependencies: ["ReservoirBase", "EventStorePostgres", "EventStore", "PostgresTestSupport"]),
        .testTarget(name: "ICalendarTests", dependencies: ["ReservoirBase", "ICalendar", "EventStore", "TestRequirements"]),
        .testTarget(name: "DeliveryTests", dependencies: ["Delivery", "EventStore", "ICalendar"]),
        .testTarget(name: "CalDAVTests", dependencies: ["CalDAV", "CurlTransport", "TestRequirements"]),
        .testTarget(name: "IMAPTests", dependencies: ["IMAP"]),
        .testTarget(name: "FeedTests", dependencies: ["Feed", "EventStore", "ICalendar", "ReservoirBase"]),
        .testTarget(name: "TimeZonesTests", dependencies: ["TimeZones", "TestRequirements"]),
        .testTarget(name: "TrustTests", dependencies: ["Trust", "MIME", "DKIM", "WalletPass", "TestRequirements"]),
        // Zip archives and signed Wallet passes made with openssl, for the tests of passes.
        .target(name: "PassTestSupport", dependencies: ["CZlib"], path: "Tests/PassTestSupport"),
        .testTarget(name: "ZipTests", dependencies: ["Zip", "PassTestSupport"]),
        .testTarget(name: "BCBPTests", dependencies: ["BCBP"]),
        .testTarget(
            name: "RailTicketTests", dependencies: ["RailTicket", "JSON", "Reservations", "Markup"], exclude: ["Tickets", "Keys", "Samples"]),
        .testTarget(name: "WalletPassTests", dependencies: ["WalletPass", "Zip", "JSON", "PassTestSupport", "TestRequirements"]),
        .testTarget(name: "ICalendarReadingTests", dependencies: ["ICalendarReading", "TimeZones", "TestRequirements"], exclude: ["Fixtures"]),
        .testTarget(
            name: "ARCTests",
            dependencies: ["ARC", "DKIM", "MIME", "DNS", "Trust", "PipelineTestSupport", "Pipeline", "Reservations", "TestRequirements"]),
        .target(
            name: "PipelineTestSupport", dependencies: ["Pipeline", "Trust", "Mailbox", "MIME", "DNS", "DKIM", "EventStore"],
            path: "Tests/PipelineTestSupport"),
        .testTarget(
            name: "OutputTests",
            dependencies: [
                "Output", "Pipeline", "PipelineTestSupport", "Trust", "Mailbox", "MIME", "DKIM", "JSON",
                "Markup", "Reservations", "EventStore",
            ]),
        .testTarget(
            name: "PipelineTests",
            dependencies: [
                "PipelineTestSupport", "Pipeline", "Trust", "Mailbox", "MIME", "DNS", "DKIM", "Markup", "Reservations", "EventStore", "JSON",
                "ICalendar", "PassTestSupport", "WalletPass", "ICalendarReading", "ARC", "EventStorePostgres", "PostgresTestSupport",
                "Documents", "RailTicket", "TestRequirements",
            ],
            exclude: ["Attacks"]),
        .testTarget(name: "TelemetryTests", dependencies: ["ServiceLog", "Telemetry", "CommandCore"]),
        .target(name: "DNSTestSupport", path: "Tests/DNSTestSupport"),
        .testTarget(
            name: "CommandCoreTests", dependencies: ["CommandCore", "DNS", "Pipeline", "Trust", "TOML", "ICalendar", "EventStore", "DNSTestSupport"]),
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "DocumentsTests", dependencies: ["Documents"]),
        .testTarget(
            name: "ReservoirCLITests",
            dependencies: [
                "reservoir", "reservoir-filter", "reservoir-serve", "reservoir-milter", "reservoir-document", "PostgresTestSupport",
                "TestRequirements", "DNSTestSupport",
            ],
            exclude: ["Extraction", "Corpus", "Documents"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSwiftSettings
}
