package import Prometheus

/// The metrics of a long-running program, in one Prometheus registry, by the names
/// docs/SITE.md lists ("Metrics"). Every label value comes from a bounded set (an outcome, a
/// verdict, a refusal code, a state, a status class): never an address or a domain, which a
/// site of thousands of accounts would turn into thousands of series.
package final class ServiceMetrics: Sendable {
    package let registry = PrometheusCollectorRegistry()

    package init() {}

    /// `reservoir_NAME_total{label="value"}` increased by `amount`.
    package func count(_ name: String, _ help: String, label: (String, String)? = nil, by amount: Int = 1) {
        let descriptor = MetricNameDescriptor(namespace: "reservoir", metricName: name, unitName: "total", helpText: help)
        let counter = label.map { registry.makeCounter(descriptor: descriptor, labels: [$0]) } ?? registry.makeCounter(descriptor: descriptor)
        counter.increment(by: Int64(amount))
    }

    /// A gauge, `reservoir_NAME` or `reservoir_NAME{label="value"}`, set to `value`.
    package func set(_ name: String, _ help: String, label: (String, String)? = nil, to value: Double) {
        gauge(name, help, label: label).set(value)
    }

    package func gauge(_ name: String, _ help: String, label: (String, String)? = nil) -> Gauge {
        let descriptor = MetricNameDescriptor(namespace: "reservoir", metricName: name, unitName: "", helpText: help)
        return label.map { registry.makeGauge(descriptor: descriptor, labels: [$0]) } ?? registry.makeGauge(descriptor: descriptor)
    }

    /// The buckets of the duration histograms, 1 ms to 10 s: a store write on the same host
    /// takes a few milliseconds; PostgreSQL across a network, tens.
    package static let durationBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// `reservoir_NAME_seconds` (a histogram) given one observation.
    package func observe(_ name: String, _ help: String, seconds: Double) {
        let descriptor = MetricNameDescriptor(namespace: "reservoir", metricName: name, unitName: "seconds", helpText: help)
        registry.makeDurationHistogram(descriptor: descriptor, buckets: Self.durationBuckets)
            .recordNanoseconds(Int64(seconds * 1e9))
    }

    /// The exposition, as `GET /metrics` answers it.
    package func exposition() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
