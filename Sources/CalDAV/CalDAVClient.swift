internal import CLibCurl
internal import CLibCurlLoader
internal import CurlTransport

/// Reads and writes the calendar object resources of one calendar collection (RFC 4791 §5.3)
/// over HTTP through libcurl (HTTP/1.1, or HTTP/2 when a TLS server offers it), loaded when
/// the first client is made.
///
/// One connection is kept alive across requests. Every exchange is bounded by
/// `CalDAVSettings.timeoutMilliseconds`, uses only http and https, follows no redirect,
/// verifies TLS against the system's CA store or `CalDAVSettings.caFile`, and sends
/// credentials only from a netrc file, with Basic or Digest authentication as the server asks
/// (RFC 7617, RFC 7616). Requests never throw: each returns a `CalDAVResponse`.
///
/// Not for concurrent use: one easy handle serves one request at a time.
public final class CalDAVClient {
    public let collection: CalDAVCollection
    public let settings: CalDAVSettings
    /// The netrc file libcurl reads, after `CurlNetrc`'s checks; nil for none.
    public let netrcFile: String?
    /// The netrc entry of ``CalDAVSettings/login`` for the server's host, when the file has one.
    let chosen: (login: String, password: String)?
    private let handle: CurlEasyHandle

    /// Checks the settings and the netrc file, loads libcurl.so.4 and makes the handle. Throws
    /// `libcurlUnavailable` when libcurl cannot be loaded or refuses an option this client
    /// needs (libcurl older than 7.85 has no CURLOPT_PROTOCOLS_STR).
    public init(collection: CalDAVCollection, settings: CalDAVSettings) throws(CalDAVError) {
        netrcFile = try settings.check()
        // One login of several for the host: the URL's (`jane@host`), else the account's, that
        // entry's read here, as curl takes the entry of the user name a URL names. Otherwise
        // libcurl reads the file (the host's first entry, else `default`); a login the URL
        // names stays its own, with the password the netrc has for it or none.
        chosen = netrcFile.flatMap { file in
            (collection.login ?? settings.login).flatMap { CurlNetrc.credentials(in: file, host: collection.host, login: $0) }
        }
        // libcurl is loaded on first use (see CLibCurlLoader).
        guard reservoir_libcurl_load() != 0 else {
            throw CalDAVError(.libcurlUnavailable, String(cString: reservoir_libcurl_error()) + "; install libcurl4")
        }
        guard let handle = CurlEasyHandle() else {
            throw CalDAVError(.libcurlUnavailable, "libcurl could not make a handle (curl_easy_init)")
        }
        self.collection = collection
        self.settings = settings
        self.handle = handle
        // Every option once now, so a libcurl that refuses one fails here rather than per request.
        setOptions(url: collection.url, collector: nil)
        if let refused = handle.refusedOption {
            throw CalDAVError(.libcurlUnavailable, "libcurl refuses \(refused.name): \(handle.message(for: refused.code))")
        }
    }

    /// Writes `body` (an iCalendar object, RFC 4791 §4.1) as the resource `name`, sent as
    /// `text/calendar; charset=utf-8`. `condition` makes it a create (`If-None-Match: *`), a
    /// replacement of one version (`If-Match`) or neither (RFC 4791 §5.3.2, RFC 9110 §13.1);
    /// a failed condition is `.preconditionFailed`. The answer carries the new entity tag when
    /// the server sends one (RFC 4791 §5.3.4: it need not, when it changed the data).
    /// `timeoutMilliseconds`, when given, bounds this request instead of the settings' time-out
    /// (a caller with a deadline passes what is left of it).
    public func put(
        resource name: CalDAVResourceName, body: String, condition: PutCondition, timeoutMilliseconds: Int? = nil
    ) -> CalDAVResponse {
        var fields = ["Content-Type: text/calendar; charset=utf-8"]
        switch condition {
        case .create: fields.append("If-None-Match: *")
        case .replace(let etag):
            guard isFieldValue(etag) else { return .failed(.invalidRequest("the entity tag \(etag.debugDescription) is not a field value")) }
            fields.append("If-Match: " + etag)
        case .unconditional: break
        }
        return perform(method: "PUT", name: name, body: Array(body.utf8), fields: fields, timeout: timeoutMilliseconds)
    }

    /// Reads the resource `name`: its body and entity tag, or `.notFound`.
    public func get(resource name: CalDAVResourceName, timeoutMilliseconds: Int? = nil) -> CalDAVResponse {
        perform(method: "GET", name: name, body: nil, fields: [], timeout: timeoutMilliseconds)
    }

    /// Deletes the resource `name`, only in the version `etag` when given (`If-Match`,
    /// RFC 9110 §13.1.1; RFC 4791 §5.3.2 asks clients to use it).
    public func delete(resource name: CalDAVResourceName, etag: String?, timeoutMilliseconds: Int? = nil) -> CalDAVResponse {
        var fields: [String] = []
        if let etag {
            guard isFieldValue(etag) else { return .failed(.invalidRequest("the entity tag \(etag.debugDescription) is not a field value")) }
            fields.append("If-Match: " + etag)
        }
        return perform(method: "DELETE", name: name, body: nil, fields: fields, timeout: timeoutMilliseconds)
    }

    /// RFC 9110 §5.5: a field value has no controls (CR and LF would start another field).
    private func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F }
    }

    private func perform(method: String, name: CalDAVResourceName, body: [UInt8]?, fields: [String], timeout: Int?) -> CalDAVResponse {
        let collector = ResponseCollector()
        // "Expect:" with no value: no 100-continue round trip before the body (RFC 9110 §10.1.1).
        let headerFields = CurlStringList(fields + ["Expect:"])
        guard headerFields.isComplete else { return .failed(.other("out of memory for the request header")) }
        return withExtendedLifetime((collector, headerFields)) {
            setOptions(url: collection.url(of: name), collector: collector, timeout: timeout)
            handle.set(CURLOPT_HTTPHEADER, list: headerFields, "CURLOPT_HTTPHEADER")
            if let body {
                handle.set(CURLOPT_CUSTOMREQUEST, method, "CURLOPT_CUSTOMREQUEST")
                // CURLOPT_POSTFIELDSIZE first: COPYPOSTFIELDS copies that many bytes.
                handle.set(CURLOPT_POSTFIELDSIZE, body.count, "CURLOPT_POSTFIELDSIZE")
                // A NUL after the bytes: never an empty buffer without an address.
                var copy = body
                copy.append(0)
                copy.withUnsafeMutableBytes { bytes in
                    handle.set(CURLOPT_COPYPOSTFIELDS, pointer: bytes.baseAddress, "CURLOPT_COPYPOSTFIELDS")
                }
            } else {
                handle.set(CURLOPT_HTTPGET, 1, "CURLOPT_HTTPGET")
                handle.set(CURLOPT_CUSTOMREQUEST, method, "CURLOPT_CUSTOMREQUEST")
            }
            if let refused = handle.refusedOption {
                return .failed(.other("libcurl refuses \(refused.name): \(handle.message(for: refused.code))"))
            }
            let code = handle.perform()
            guard code == CURLE_OK else {
                if collector.body.overflowed { return .failed(.responseTooLarge) }
                return .failed(Self.failure(code, handle.message(for: code)))
            }
            return .answered(CalDAVAnswer(status: handle.responseCode(), etag: collector.etag, body: collector.body.bytes))
        }
    }

    /// The options every request sets after a reset. `collector` nil: no callbacks (the check
    /// in `init`).
    private func setOptions(url: String, collector: ResponseCollector?, timeout: Int? = nil) {
        let timeout = max(1, timeout ?? settings.timeoutMilliseconds)
        handle.reset()
        handle.set(CURLOPT_URL, url, "CURLOPT_URL")
        // Only http and https, for this URL and anything it could lead to.
        handle.set(CURLOPT_PROTOCOLS_STR, "http,https", "CURLOPT_PROTOCOLS_STR")
        handle.set(CURLOPT_FOLLOWLOCATION, 0, "CURLOPT_FOLLOWLOCATION")
        // "If you want to use timeouts in a multi-threaded application and you are not using
        // the threaded resolver, set this option" — and the filter hook uses SIGALRM itself.
        handle.set(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        handle.set(CURLOPT_TIMEOUT_MS, timeout, "CURLOPT_TIMEOUT_MS")
        handle.set(CURLOPT_CONNECTTIMEOUT_MS, timeout, "CURLOPT_CONNECTTIMEOUT_MS")
        handle.set(CURLOPT_USERAGENT, settings.userAgent, "CURLOPT_USERAGENT")
        // Verification stays on (CURLOPT_SSL_VERIFYPEER and _VERIFYHOST default to on).
        if let caFile = settings.caFile { handle.set(CURLOPT_CAINFO, caFile, "CURLOPT_CAINFO") }
        if let chosen {
            handle.set(CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue), "CURLOPT_NETRC")
            handle.set(CURLOPT_USERNAME, chosen.login, "CURLOPT_USERNAME")
            handle.set(CURLOPT_PASSWORD, chosen.password, "CURLOPT_PASSWORD")
            handle.set(CURLOPT_HTTPAUTH, Int(reservoir_curlauth_basic_digest()), "CURLOPT_HTTPAUTH")
        } else if let netrcFile {
            handle.set(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue), "CURLOPT_NETRC")
            handle.set(CURLOPT_NETRC_FILE, netrcFile, "CURLOPT_NETRC_FILE")
            handle.set(CURLOPT_HTTPAUTH, Int(reservoir_curlauth_basic_digest()), "CURLOPT_HTTPAUTH")
        } else {
            handle.set(CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue), "CURLOPT_NETRC")
        }
        guard let collector else { return }
        let context = Unmanaged.passUnretained(collector).toOpaque()
        handle.set(CURLOPT_HEADERDATA, pointer: context, "CURLOPT_HEADERDATA")
        handle.set(
            CURLOPT_HEADERFUNCTION,
            callback: { data, size, count, context in
                guard let data, let context else { return 0 }
                let length = size * count
                Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
                    .header(UnsafeRawBufferPointer(start: data, count: length))
                return length
            }, "CURLOPT_HEADERFUNCTION")
        handle.collectBody(into: collector.body)
    }

    /// libcurl-errors(3) codes to failures.
    static func failure(_ code: CURLcode, _ detail: String) -> CalDAVTransportFailure {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: .timeout
        case CURLE_COULDNT_CONNECT: .couldNotConnect
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .dns
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED:
            .tls(detail)
        // HTTP/0.9 (bytes without a status line) is refused with CURLE_UNSUPPORTED_PROTOCOL;
        // the scheme is checked before, so that code means a reply that is not HTTP.
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_GOT_NOTHING, CURLE_BAD_CONTENT_ENCODING:
            .malformedResponse(detail)
        default: .other(detail)
        }
    }
}
