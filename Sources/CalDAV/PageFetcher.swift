internal import CLibCurl
internal import CLibCurlLoader
internal import CurlTransport
import Glibc

/// The limits of `reservoir add URL` (docs/RELIABILITY.md).
public enum PageLimits {
    /// The largest page body read; a longer one stops the transfer. A confirmation page with its
    /// markup is tens of kilobytes; the bound keeps a hostile server from filling memory.
    public static let maxBodyBytes = 2 << 20
    /// The redirects followed at most (RFC 9110 §15.4: "a client SHOULD detect and intervene in
    /// cyclical redirections").
    public static let maxRedirects = 5
    /// The time the whole fetch may take, every hop together, by default.
    public static let timeoutMilliseconds = 20_000
}

/// How one page is fetched: the CA file in place of the system's, the `--resolve` entries
/// (`HOST:PORT:ADDRESS`, CURLOPT_RESOLVE), the time limit, and the hosts that may be on a
/// loopback, private or other special-purpose address (`--allow-private-host`).
public struct PageFetchSettings: Sendable {
    public var caFile: String?
    public var resolve: [String]
    public var timeoutMilliseconds: Int
    /// Host names (or IP literals) as in the URL, compared without regard to ASCII case.
    public var allowPrivateHosts: [String]

    public init(
        caFile: String? = nil, resolve: [String] = [], timeoutMilliseconds: Int = PageLimits.timeoutMilliseconds, allowPrivateHosts: [String] = []
    ) {
        self.caFile = caFile
        self.resolve = resolve
        self.timeoutMilliseconds = timeoutMilliseconds
        self.allowPrivateHosts = allowPrivateHosts
    }
}

/// A page's address as libcurl reads it (curl_url(3)).
public struct PageAddress: Sendable, Equatable {
    public var url: String
    /// `https` or `http`, lowercase.
    public var scheme: String
    /// The host, lowercase, as libcurl would connect to it.
    public var host: String

    /// Nil when libcurl cannot read `text` as an absolute URL with a host.
    public static func read(_ text: String) -> PageAddress? {
        guard reservoir_libcurl_load() != 0, let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, text, 0) == CURLUE_OK else { return nil }
        func part(_ what: CURLUPart) -> String? {
            var out: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, what, &out, 0) == CURLUE_OK, let out else { return nil }
            defer { curl_free(out) }
            return String(cString: out)
        }
        guard let url = part(CURLUPART_URL), let scheme = part(CURLUPART_SCHEME), let host = part(CURLUPART_HOST), !host.isEmpty
        else { return nil }
        return PageAddress(url: url, scheme: scheme.lowercased(), host: host.lowercased())
    }
}

/// Why a page could not be fetched; ``code`` is the stable name (docs/USAGE.md).
public enum PageFetchFailure: Error, Sendable, Equatable {
    case libcurlUnavailable(String)
    case notAnAddress(String)
    /// A scheme other than https or http.
    case schemeNotAllowed(String)
    /// A redirect to a scheme other than https (RFC 9110 §15.4: the client decides).
    case redirectNotHTTPS(String)
    /// A redirect to another registered domain: not followed.
    case redirectOffSite(String)
    case tooManyRedirects
    case tooLarge
    case timeout
    /// The certificate did not verify or name the host (RFC 9525 §6), or the TLS handshake failed.
    case tls(String)
    /// Nothing answered at the host, it has no address, or every address it has is a
    /// special-purpose one it may not use: one answer for all, naming the host only, so that
    /// the answers say nothing of what listens on a private network.
    case couldNotConnect(host: String)
    /// A final status other than 200.
    case status(Int)
    /// The final response's media type is not HTML (``PageMediaType``): its markup is not read.
    case notHTML(PageMediaType)
    case other(String)

    public enum Code: String, Sendable, CaseIterable {
        case libcurlUnavailable = "page-libcurl-unavailable"
        case notAnAddress = "page-not-an-address"
        case schemeNotAllowed = "page-scheme-not-allowed"
        case redirectNotHTTPS = "page-redirect-not-https"
        case redirectOffSite = "page-redirect-off-site"
        case tooManyRedirects = "page-too-many-redirects"
        case tooLarge = "page-too-large"
        case timeout = "page-timeout"
        case tls = "page-tls"
        case couldNotConnect = "page-could-not-connect"
        case status = "page-status"
        case notHTML = "page-not-html"
        case other = "page-fetch-failed"
    }

    public var code: Code {
        switch self {
        case .libcurlUnavailable: .libcurlUnavailable
        case .notAnAddress: .notAnAddress
        case .schemeNotAllowed: .schemeNotAllowed
        case .redirectNotHTTPS: .redirectNotHTTPS
        case .redirectOffSite: .redirectOffSite
        case .tooManyRedirects: .tooManyRedirects
        case .tooLarge: .tooLarge
        case .timeout: .timeout
        case .tls: .tls
        case .couldNotConnect: .couldNotConnect
        case .status: .status
        case .notHTML: .notHTML
        case .other: .other
        }
    }

    public var sentence: String {
        switch self {
        case .libcurlUnavailable(let why): why
        case .notAnAddress(let text): "\(text.debugDescription) is not an absolute URL with a host"
        case .schemeNotAllowed(let scheme): "the scheme \(scheme) is not fetched: only https (and http, never trusted)"
        case .redirectNotHTTPS(let to): "a redirect to \(to), which is not https, was not followed"
        case .redirectOffSite(let to): "a redirect to \(to), another registered domain, was not followed"
        case .tooManyRedirects: "more than \(PageLimits.maxRedirects) redirects"
        case .tooLarge: "the page is larger than \(PageLimits.maxBodyBytes >> 20) MB"
        case .timeout: "no complete answer within the time limit"
        case .tls(let detail): "the TLS connection could not be verified: \(detail)"
        case .couldNotConnect(let host):
            "could not connect to \(host): nothing answered, or every address it has is loopback, private or otherwise special-purpose (fetched only for a host named with --allow-private-host)"
        case .status(let status): "the server answered with status \(status)"
        case .notHTML(.other(let type)): "the page is served as \(type), not as HTML (text/html or application/xhtml+xml): its markup is not read"
        case .notHTML: "the page is served without a media type, not as HTML (text/html or application/xhtml+xml): its markup is not read"
        case .other(let detail): detail
        }
    }
}

/// A page fetched: where it ended, every address it passed through, its bytes.
public struct FetchedPage: Sendable {
    public var address: PageAddress
    /// The addresses requested, first to last (the last is `address`).
    public var hops: [String]
    public var body: [UInt8]
}

/// Fetches one page with GET through libcurl (the handle the CalDAV client uses). Redirects are
/// not libcurl's (no CURLOPT_FOLLOWLOCATION): each target is read here, and followed only when
/// it is https and `sameSite` accepts its host, at most ``PageLimits/maxRedirects`` times.
/// TLS is verified (peer and host name) against the system's CAs or the settings' CA file.
/// Every connection's address is checked first (``PageConnectionGuard``), on every hop, and
/// no proxy of the environment is used (its address would be the one checked).
public final class PageFetcher {
    private let handle: CurlEasyHandle
    public let settings: PageFetchSettings
    private let connectionGuard: PageConnectionGuard

    public init(settings: PageFetchSettings) throws(PageFetchFailure) {
        guard reservoir_libcurl_load() != 0 else {
            throw .libcurlUnavailable(String(cString: reservoir_libcurl_error()) + "; install libcurl4")
        }
        guard let handle = CurlEasyHandle() else { throw .libcurlUnavailable("libcurl could not make a handle (curl_easy_init)") }
        self.handle = handle
        self.settings = settings
        connectionGuard = PageConnectionGuard(allowedHosts: Set(settings.allowPrivateHosts.map(PageConnectionGuard.bare)))
    }

    /// `sameSite(from, to)`: whether a redirect from host `from` to host `to` stays within one
    /// registered domain.
    public func fetch(_ text: String, sameSite: (String, String) -> Bool) -> Result<FetchedPage, PageFetchFailure> {
        guard var address = PageAddress.read(text) else { return .failure(.notAnAddress(text)) }
        guard address.scheme == "https" || address.scheme == "http" else { return .failure(.schemeNotAllowed(address.scheme)) }
        let resolve = CurlStringList(settings.resolve)
        guard resolve.isComplete else { return .failure(.other("out of memory for the --resolve entries")) }
        var hops = [address.url]
        let start = Self.monotonicMilliseconds()
        while true {
            let left = settings.timeoutMilliseconds - (Self.monotonicMilliseconds() - start)
            guard left > 0 else { return .failure(.timeout) }
            let collector = CurlBody(limit: PageLimits.maxBodyBytes)
            connectionGuard.enter(host: address.host)
            let code: CURLcode = withExtendedLifetime((collector, resolve, connectionGuard)) {
                setOptions(address.url, collector: collector, resolve: resolve, timeout: left)
                if let refused = handle.refusedOption { return refused.code }
                return handle.perform()
            }
            guard code == CURLE_OK else {
                if collector.overflowed { return .failure(.tooLarge) }
                return .failure(Self.failure(code, handle.message(for: code), host: address.host))
            }
            let status = handle.responseCode()
            if (300..<400).contains(status), let target = redirectURL() {
                // RFC 9110 §15.4: the client chooses whether to follow. Only https, only within
                // the registered domain, and only so many times.
                guard let next = PageAddress.read(target) else { return .failure(.notAnAddress(target)) }
                guard next.scheme == "https" else { return .failure(.redirectNotHTTPS(next.url)) }
                guard sameSite(address.host, next.host) else { return .failure(.redirectOffSite(next.url)) }
                guard hops.count <= PageLimits.maxRedirects else { return .failure(.tooManyRedirects) }
                address = next
                hops.append(next.url)
                continue
            }
            guard status == 200 else { return .failure(.status(status)) }
            // A guest's upload or a download on the site's own host is not the site's page.
            let mediaType = PageMediaType(contentType: contentType())
            guard mediaType == .html else { return .failure(.notHTML(mediaType)) }
            return .success(FetchedPage(address: address, hops: hops, body: collector.bytes))
        }
    }

    /// CLOCK_MONOTONIC in milliseconds: the time limit holds across hops whatever the wall clock does.
    private static func monotonicMilliseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }

    /// CURLINFO_REDIRECT_URL: the Location the response names, made absolute by libcurl.
    private func redirectURL() -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard reservoir_curl_getinfo_string(handle.raw, CURLINFO_REDIRECT_URL, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// CURLINFO_CONTENT_TYPE: the final response's `Content-Type`, nil when it had none.
    private func contentType() -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard reservoir_curl_getinfo_string(handle.raw, CURLINFO_CONTENT_TYPE, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    private func setOptions(_ url: String, collector: CurlBody, resolve: CurlStringList, timeout: Int) {
        handle.reset()
        handle.set(CURLOPT_URL, url, "CURLOPT_URL")
        handle.set(CURLOPT_PROTOCOLS_STR, "http,https", "CURLOPT_PROTOCOLS_STR")
        handle.set(CURLOPT_FOLLOWLOCATION, 0, "CURLOPT_FOLLOWLOCATION")
        handle.set(CURLOPT_HTTPGET, 1, "CURLOPT_HTTPGET")
        handle.set(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        handle.set(CURLOPT_TIMEOUT_MS, timeout, "CURLOPT_TIMEOUT_MS")
        handle.set(CURLOPT_CONNECTTIMEOUT_MS, timeout, "CURLOPT_CONNECTTIMEOUT_MS")
        handle.set(CURLOPT_USERAGENT, "reservoir", "CURLOPT_USERAGENT")
        handle.set(CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue), "CURLOPT_NETRC")
        // CURLOPT_PROXY: "Setting the proxy string to "" (an empty string) explicitly disables
        // the use of a proxy, even if there is an environment variable set for it."
        handle.set(CURLOPT_PROXY, "", "CURLOPT_PROXY")
        // RFC 6890: no connection to this machine or its networks, checked on the address itself.
        handle.set(CURLOPT_OPENSOCKETFUNCTION, openSocket: PageConnectionGuard.openSocket, "CURLOPT_OPENSOCKETFUNCTION")
        handle.set(CURLOPT_OPENSOCKETDATA, pointer: Unmanaged.passUnretained(connectionGuard).toOpaque(), "CURLOPT_OPENSOCKETDATA")
        // Verification stays on (CURLOPT_SSL_VERIFYPEER and _VERIFYHOST default to on).
        if let caFile = settings.caFile { handle.set(CURLOPT_CAINFO, caFile, "CURLOPT_CAINFO") }
        if !settings.resolve.isEmpty { handle.set(CURLOPT_RESOLVE, list: resolve, "CURLOPT_RESOLVE") }
        handle.collectBody(into: collector)
    }

    /// libcurl's failure as the page's; a refused connection, a closed port and a name without
    /// an address are one answer, without libcurl's words, which would tell them apart.
    static func failure(_ code: CURLcode, _ detail: String, host: String) -> PageFetchFailure {
        switch CalDAVClient.failure(code, detail) {
        case .timeout: .timeout
        case .tls(let detail): .tls(detail)
        case .couldNotConnect, .dns: .couldNotConnect(host: host)
        default: .other(detail)
        }
    }
}
