import Testing

@testable import CalDAV

@Suite("Outcomes from status codes and transport failures, and which are worth retrying")
struct CalDAVOutcomeTests {
    @Test(
        "status codes",
        arguments: [
            (201, CalDAVOutcome.succeeded(etag: "\"e\""), false),
            (204, .succeeded(etag: "\"e\""), false),
            (200, .succeeded(etag: "\"e\""), false),
            (412, .preconditionFailed, false),
            (404, .notFound, false),
            (410, .notFound, false),
            (401, .unauthorized, false),
            (403, .unauthorized, false),
            (500, .serverError(status: 500), true),
            (503, .serverError(status: 503), true),
            (408, .serverError(status: 408), true),
            (429, .serverError(status: 429), true),
            (400, .refused(status: 400), false),
            (405, .refused(status: 405), false),
            (415, .refused(status: 415), false),
            (301, .refused(status: 301), false),
        ])
    func status(status: Int, outcome: CalDAVOutcome, transient: Bool) {
        let response = CalDAVResponse.answered(CalDAVAnswer(status: status, etag: "\"e\"", body: []))
        #expect(response.outcome == outcome)
        #expect(response.outcome.isTransient == transient)
    }

    @Test(
        "transport failures: equal by code, transient unless someone must act",
        arguments: [
            (CalDAVTransportFailure.timeout, true),
            (.couldNotConnect, true),
            (.dns, true),
            (.malformedResponse("x"), true),
            (.other("x"), true),
            (.tls("x"), false),
            (.responseTooLarge, false),
            (.invalidRequest("x"), false),
        ])
    func transport(failure: CalDAVTransportFailure, transient: Bool) {
        #expect(CalDAVResponse.failed(failure).outcome.isTransient == transient)
        #expect(CalDAVOutcome.transport(failure) == .transport(failure))
    }

    @Test("failures with different details are equal, different codes are not")
    func equalByCode() {
        #expect(CalDAVTransportFailure.tls("expired") == .tls("unknown issuer"))
        #expect(CalDAVTransportFailure.tls("x") != .other("x"))
        #expect(CalDAVError(.netrcTooOpen, "a") == CalDAVError(.netrcTooOpen, "b"))
    }
}
