import CalDAV
import ReservoirBase

/// A CalDAV calendar collection (RFC 4791) as a ``CalendarCollection``: each call is one
/// request of a ``CalDAVClient``, bounded by what is left of the deadline. libcurl is loaded
/// when the first of these is made, so a process that configures no CalDAV calendar, or has
/// nothing to push, never loads it.
public final class CalDAVCalendarCollection: CalendarCollection {
    private let client: CalDAVClient
    private let requestLimit: Int64

    /// Throws ``DeliveryError`` for a URL or netrc file the client refuses, or when libcurl
    /// cannot be loaded.
    /// `login`: the netrc entry to take when the file has several for the host (``CalDAVSettings/login``).
    public init(url: String, netrcFile: String?, caFile: String?, login: String? = nil, requestTimeoutMilliseconds: Int64) throws(DeliveryError) {
        do {
            let collection = try CalDAVCollection(url: url)
            client = try CalDAVClient(
                collection: collection,
                settings: CalDAVSettings(
                    netrcFile: netrcFile, caFile: caFile, timeoutMilliseconds: Int(requestTimeoutMilliseconds), login: login))
        } catch {
            throw DeliveryError("\(URLText.withoutCredentials(url)): \(error)")
        }
        requestLimit = requestTimeoutMilliseconds
    }

    /// Checks the URL, netrc file and CA file as ``init(url:netrcFile:caFile:requestTimeoutMilliseconds:)``
    /// would, without loading libcurl: for a hook that must refuse a setting before it records
    /// anything, on every message, at the cost of a stat and an open.
    public static func check(url: String, netrcFile: String?, caFile: String?) throws(DeliveryError) {
        do {
            _ = try CalDAVCollection(url: url)
            try CalDAVSettings(netrcFile: netrcFile, caFile: caFile).check()
        } catch {
            throw DeliveryError("\(url): \(error)")
        }
    }

    public func put(_ name: String, body: String, condition: WriteCondition, deadline: Deadline) -> CollectionAnswer {
        guard let resource = Self.resource(name) else { return .failed(DeliveryFailure(.refused, "\(name) is not a resource name")) }
        let put: PutCondition =
            switch condition {
            case .create: .create
            case .replace(let etag): .replace(etag: etag)
            }
        return Self.answer(client.put(resource: resource, body: body, condition: put, timeoutMilliseconds: timeout(deadline)))
    }

    public func get(_ name: String, deadline: Deadline) -> CollectionAnswer {
        guard let resource = Self.resource(name) else { return .notFound }
        return Self.answer(client.get(resource: resource, timeoutMilliseconds: timeout(deadline)), keepBody: true)
    }

    public func delete(_ name: String, etag: String?, deadline: Deadline) -> CollectionAnswer {
        guard let resource = Self.resource(name) else { return .notFound }
        return Self.answer(client.delete(resource: resource, etag: etag, timeoutMilliseconds: timeout(deadline)))
    }

    private func timeout(_ deadline: Deadline) -> Int { Int(deadline.timeout(atMost: requestLimit)) }

    /// The UID-based names the delivery step makes are resource names as they are; any other
    /// byte is percent-encoded by ``CalDAVResourceName``.
    private static func resource(_ name: String) -> CalDAVResourceName? {
        try? CalDAVResourceName(name)
    }

    /// The preconditions RFC 4791 §5.3.2.1 names for a PUT a server refuses (in the body of its
    /// answer, as `<C:name/>`).
    static let putPreconditions = [
        "no-uid-conflict", "supported-calendar-data", "valid-calendar-data", "valid-calendar-object-resource",
        "supported-calendar-component", "calendar-collection-location-ok", "max-resource-size", "min-date-time", "max-date-time",
        "max-instances", "max-attendees-per-instance",
    ]

    /// What a refusal means. A 409 to a PUT that names no CalDAV precondition is RFC 4918
    /// §9.7.1's: "A PUT that would result in the creation of a resource without an
    /// appropriately scoped parent collection MUST fail with a 409 (Conflict)": the calendar
    /// does not exist. It is not made here (MKCALENDAR, RFC 4791 §5.3.1): a mistyped URL would
    /// become a calendar nobody looks at.
    static func refusal(_ status: Int, body: String?) -> String {
        guard status == 409 else { return "HTTP \(status)" }
        if let body, let condition = putPreconditions.first(where: { body.contains($0) }) {
            return "HTTP 409: the server refused the event (CALDAV:\(condition), RFC 4791 §5.3.2.1)"
        }
        return
            "HTTP 409: the calendar collection does not exist: create the calendar first (MKCALENDAR, or in the server's own interface), then run reservoir sync"
    }

    static func answer(_ response: CalDAVResponse, keepBody: Bool = false) -> CollectionAnswer {
        switch response.outcome {
        case .succeeded(let etag): return .done(etag: etag, body: keepBody ? response.answer?.text : nil)
        case .preconditionFailed: return .preconditionFailed
        case .notFound: return .notFound
        case .unauthorized: return .failed(DeliveryFailure(.unauthorized, "\(response.answer?.status ?? 401): check the netrc file"))
        case .serverError(let status): return .failed(DeliveryFailure(.serverError, "HTTP \(status)"))
        case .refused(let status): return .failed(DeliveryFailure(.refused, refusal(status, body: response.answer?.text)))
        case .transport(let failure):
            let code: DeliveryFailure.Code =
                switch failure {
                case .timeout: .timeout
                case .couldNotConnect, .dns: .unreachable
                case .tls: .tls
                // Bytes that are not HTTP: a server restarting or a proxy in trouble; tried again.
                case .malformedResponse: .serverError
                case .responseTooLarge, .invalidRequest: .refused
                case .other: .unreachable
                }
            return .failed(DeliveryFailure(code, failure.description))
        }
    }
}
