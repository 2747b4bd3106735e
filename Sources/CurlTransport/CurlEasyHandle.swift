package import CLibCurl
import CLibCurlLoader

/// One libcurl easy handle and its error buffer, owned here alone and released in `deinit`
/// (curl_easy_cleanup(3): "This might close all connections this handle has used").
///
/// The handle keeps its connections between transfers: curl_easy_reset(3) "does not change
/// the following information kept in the handle: live connections, the Session ID cache, the
/// DNS cache, the cookies, the shares or the alt-svc cache", so each request starts from
/// default options and still reuses a kept-alive connection.
package final class CurlEasyHandle {
    package let raw: UnsafeMutableRawPointer
    /// CURLOPT_ERRORBUFFER: "a buffer … at least CURL_ERROR_SIZE bytes big".
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let errorBufferSize: Int
    /// The first option libcurl refused since the last reset, with its code.
    package private(set) var refusedOption: (name: String, code: CURLcode)?

    /// Nil when libcurl cannot make a handle. libcurl must be loaded (reservoir_libcurl_load).
    package init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        errorBufferSize = Int(reservoir_curl_error_size())
        errorBuffer = .allocate(capacity: errorBufferSize)
        errorBuffer.initialize(repeating: 0, count: errorBufferSize)
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    /// Every option back to its default, and the error buffer set again.
    package func reset() {
        curl_easy_reset(raw)
        refusedOption = nil
        errorBuffer[0] = 0
        set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer), "CURLOPT_ERRORBUFFER")
    }

    package func set(_ option: CURLoption, _ value: Int, _ name: String) {
        record(reservoir_curl_setopt_long(raw, option, value), name)
    }

    /// libcurl copies string arguments (curl_easy_setopt(3): "the string is copied").
    package func set(_ option: CURLoption, _ value: String, _ name: String) {
        record(reservoir_curl_setopt_string(raw, option, value), name)
    }

    package func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?, _ name: String) {
        record(reservoir_curl_setopt_pointer(raw, option, value), name)
    }

    package func set(_ option: CURLoption, list: CurlStringList, _ name: String) {
        record(reservoir_curl_setopt_slist(raw, option, list.head), name)
    }

    package func set(_ option: CURLoption, callback: curl_write_callback, _ name: String) {
        record(reservoir_curl_setopt_callback(raw, option, callback), name)
    }

    package func set(_ option: CURLoption, openSocket: curl_opensocket_callback, _ name: String) {
        record(reservoir_curl_setopt_opensocket(raw, option, openSocket), name)
    }

    /// The transfer's body into `body` (CURLOPT_WRITEDATA, CURLOPT_WRITEFUNCTION); `body` must
    /// outlive the transfer.
    package func collectBody(into body: CurlBody) {
        set(CURLOPT_WRITEDATA, pointer: Unmanaged.passUnretained(body).toOpaque(), "CURLOPT_WRITEDATA")
        set(
            CURLOPT_WRITEFUNCTION,
            callback: { data, size, count, context in
                guard let data, let context else { return 0 }
                let length = size * count
                // Returning less than the length stops the transfer with CURLE_WRITE_ERROR.
                let kept = Unmanaged<CurlBody>.fromOpaque(context).takeUnretainedValue()
                    .append(UnsafeRawBufferPointer(start: data, count: length))
                return kept ? length : 0
            }, "CURLOPT_WRITEFUNCTION")
    }

    private func record(_ code: CURLcode, _ name: String) {
        if code != CURLE_OK && refusedOption == nil { refusedOption = (name, code) }
    }

    package func perform() -> CURLcode { curl_easy_perform(raw) }

    /// CURLINFO_RESPONSE_CODE: "the last received HTTP … response code", 0 when none.
    package func responseCode() -> Int {
        var status = 0
        guard reservoir_curl_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK else { return 0 }
        return status
    }

    /// libcurl's words for the failure: the error buffer when it has them, its generic text
    /// for the code otherwise.
    package func message(for code: CURLcode) -> String {
        let specific = errorBuffer[0] != 0 ? String(cString: errorBuffer) : ""
        let generic = curl_easy_strerror(code).map { String(cString: $0) } ?? "unknown error"
        return "curl error \(code.rawValue): " + (specific.isEmpty ? generic : specific)
    }
}
