import Testing

/// Suites that start many processes, feed them tens of megabytes or run a mail system run one
/// after another: side by side they starved each other on a two-core machine (Dovecot gave up
/// on a filter that waited its turn for the CPU), which says nothing about Reservoir.
@Suite("process-heavy suites, one at a time", .serialized)
struct ProcessSuites {}
