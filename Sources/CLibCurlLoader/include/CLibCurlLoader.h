#ifndef RESERVOIR_CLIBCURLLOADER_H
#define RESERVOIR_CLIBCURLLOADER_H
/* libcurl is loaded with dlopen when a CalDAV client is first made, not at process start:
 * the per-message filter hook without a calendar must not pay for libcurl and its dependency
 * chain (OpenSSL's libssl, nghttp2, libssh2, LDAP, Kerberos…). This target defines the libcurl
 * functions the CalDAV client calls, each forwarding to libcurl.so.4. */

/* 1 when libcurl.so.4 could be loaded and curl_global_init succeeded; 0 otherwise (the
 * reason is in reservoir_libcurl_error()). Thread-safe; the work is done once. */
int reservoir_libcurl_load(void);
const char *reservoir_libcurl_error(void);

#endif
