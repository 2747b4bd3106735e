package import CLibCurl
internal import CLibCurlLoader

/// A `struct curl_slist` of request header fields, owned here alone and freed in `deinit`
/// (curl_slist_free_all(3)). It must outlive the transfer that uses it: CURLOPT_HTTPHEADER
/// "does not copy the list".
package final class CurlStringList {
    package private(set) var head: UnsafeMutablePointer<curl_slist>?
    /// False when libcurl could not copy a string (out of memory).
    package private(set) var isComplete = true

    package init(_ strings: [String]) {
        for string in strings {
            guard let longer = curl_slist_append(head, string) else {
                isComplete = false
                break
            }
            head = longer
        }
    }

    deinit { curl_slist_free_all(head) }
}
