import Glibc
public import ReservoirBase

/// A place that holds calendar object resources by name: a CalDAV collection or a vdir.
/// The delivery step (``CalendarDelivery``) speaks to both through this, with RFC 7232's
/// conditional requests as the common language.
public protocol CalendarCollection: AnyObject {
    /// Stores `body` as `name`. `.create` succeeds only when no such resource exists
    /// (`If-None-Match: *`); `.replace(etag)` only when the resource is still the one with that
    /// entity tag (`If-Match`, RFC 7232 §3.1).
    func put(_ name: String, body: String, condition: WriteCondition, deadline: Deadline) -> CollectionAnswer
    /// The resource as stored, with its entity tag.
    func get(_ name: String, deadline: Deadline) -> CollectionAnswer
    /// Removes the resource if it still has `etag` (any version when nil).
    func delete(_ name: String, etag: String?, deadline: Deadline) -> CollectionAnswer
}

/// The precondition of a write.
public enum WriteCondition: Sendable, Equatable {
    case create
    case replace(etag: String)
}

/// What a collection answered.
public enum CollectionAnswer: Sendable, Equatable {
    /// Done; the resource's entity tag after a write, and its body after a read.
    case done(etag: String?, body: String?)
    /// RFC 7232 §4.2 412 Precondition Failed: the resource exists (create) or changed (replace).
    case preconditionFailed
    /// No such resource (404 or 410).
    case notFound
    case failed(DeliveryFailure)
}

/// Why a push did not reach a destination. Transient failures are tried again by the next
/// delivery or `reservoir sync`; the others need the user (a password, a URL).
public struct DeliveryFailure: CodedError, Sendable {
    public enum Code: String, Sendable, CaseIterable {
        /// No connection: refused, no route, name not found.
        case unreachable
        /// No answer in time.
        case timeout
        /// The TLS handshake or the certificate check failed.
        case tls
        /// 401 or 403: credentials missing or wrong (the netrc file).
        case unauthorized
        /// 5xx, 408 or 429: the server cannot take it now.
        case serverError = "server-error"
        /// Another 4xx, or an answer that is not HTTP: the request or the server is wrong.
        case refused
        /// The vdir could not be written (permissions, disk full).
        case localFile = "local-file"
        /// The time budget ended before this push could start.
        case outOfTime = "out-of-time"
        /// Two attempts in a row found the copy changed under us; tried again later.
        case conflict
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// Whether trying again later may succeed without the user doing anything.
    public var isTransient: Bool {
        switch code {
        case .unreachable, .timeout, .serverError, .localFile, .outOfTime, .conflict: true
        case .tls, .unauthorized, .refused: false
        }
    }

}

/// A point on the monotonic clock by which a push must be done, or none.
public struct Deadline: Sendable, Equatable {
    /// CLOCK_MONOTONIC milliseconds; nil for no deadline.
    public let monotonicMilliseconds: Int64?

    public static let none = Deadline(monotonicMilliseconds: nil)

    public init(monotonicMilliseconds: Int64?) {
        self.monotonicMilliseconds = monotonicMilliseconds
    }

    /// `milliseconds` from now.
    public static func after(milliseconds: Int64) -> Deadline {
        Deadline(monotonicMilliseconds: Self.now() + milliseconds)
    }

    /// Milliseconds left, nil without a deadline; 0 or less once it has passed.
    public var remainingMilliseconds: Int64? {
        monotonicMilliseconds.map { $0 - Self.now() }
    }

    public var hasPassed: Bool { (remainingMilliseconds ?? 1) <= 0 }

    /// A request's timeout: `limit`, cut to what is left.
    public func timeout(atMost limit: Int64) -> Int64 {
        guard let left = remainingMilliseconds else { return limit }
        return max(1, min(limit, left))
    }

    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
