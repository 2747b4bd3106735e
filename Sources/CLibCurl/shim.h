#ifndef RESERVOIR_CLIBCURL_SHIM_H
#define RESERVOIR_CLIBCURL_SHIM_H
/* libcurl's declarations only (Debian libcurl4-openssl-dev). Nothing here links libcurl:
 * CLibCurlLoader defines the functions below and the curl_* functions the CalDAV client
 * calls, and forwards them to libcurl.so.4 opened on first use. */
#include <curl/curl.h>

/* "curl_easy_setopt is used to tell libcurl how to behave" — it is variadic, so Swift cannot
 * call it; one function per argument type instead (defined in CLibCurlLoader). */
CURLcode reservoir_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode reservoir_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode reservoir_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode reservoir_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode reservoir_curl_setopt_callback(CURL *handle, CURLoption option, curl_write_callback value);
/* For CURLOPT_OPENSOCKETFUNCTION: the page fetcher sees each address before libcurl connects. */
CURLcode reservoir_curl_setopt_opensocket(CURL *handle, CURLoption option, curl_opensocket_callback value);
/* curl_easy_getinfo is variadic too; for the CURLINFO_LONG kinds (CURLINFO_RESPONSE_CODE). */
CURLcode reservoir_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
/* For the CURLINFO_STRING kinds (CURLINFO_REDIRECT_URL): the string is libcurl's, valid until
 * the next transfer on the handle. */
CURLcode reservoir_curl_getinfo_string(CURL *handle, CURLINFO info, char **value);

/* For CURLINFO_ACTIVESOCKET (CURLINFO_SOCKET kind): the connection a CURLOPT_CONNECT_ONLY
 * transfer left open, which the IMAP client waits on with poll(2). */
CURLcode reservoir_curl_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *value);

/* CURLAUTH_* are cast expressions, which Swift does not import. */
static inline unsigned long reservoir_curlauth_basic_digest(void) { return CURLAUTH_BASIC | CURLAUTH_DIGEST; }
/* CURL_ERROR_SIZE: the size CURLOPT_ERRORBUFFER's buffer must have. */
static inline int reservoir_curl_error_size(void) { return CURL_ERROR_SIZE; }
#endif
