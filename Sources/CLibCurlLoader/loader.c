#define CURL_DISABLE_TYPECHECK 1
#include "CLibCurlLoader.h"
/* The shim's declarations, so a signature that drifts from them fails to compile here. */
#include "../CLibCurl/shim.h"
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void *handle;
static char error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

typedef CURLcode (*global_init_fn)(long flags);

static void open_libcurl(void) {
    void *opened = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!opened) {
        const char *why = dlerror();
        snprintf(error, sizeof error, "cannot load the HTTP client library libcurl.so.4 (%s)",
                 why ? why : "unknown error");
        return;
    }
    /* "This function must be called at least once within a program before the program calls
     * any other function in libcurl" (curl_global_init(3)); pthread_once makes it once. */
    global_init_fn global_init = (global_init_fn)dlsym(opened, "curl_global_init");
    CURLcode code = global_init ? global_init(CURL_GLOBAL_DEFAULT) : CURLE_FAILED_INIT;
    if (code != CURLE_OK) {
        snprintf(error, sizeof error, "libcurl.so.4 did not initialise (curl_global_init: code %d)", (int)code);
        return;
    }
    handle = opened;
}

int reservoir_libcurl_load(void) {
    pthread_once(&once, open_libcurl);
    return handle != NULL;
}

const char *reservoir_libcurl_error(void) { return error; }

/* Callers check reservoir_libcurl_load() before making a handle; reaching a forwarder without
 * libcurl is a programming error. */
static void *resolve(const char *name) {
    if (!reservoir_libcurl_load()) {
        fprintf(stderr, "reservoir: %s\n", error);
        abort();
    }
    void *fn = dlsym(handle, name);
    if (!fn) {
        fprintf(stderr, "reservoir: libcurl.so.4 has no %s\n", name);
        abort();
    }
    return fn;
}

#define RESOLVED(type, name, symbol)                                                       \
    static type name;                                                                      \
    type f = __atomic_load_n(&name, __ATOMIC_ACQUIRE);                                     \
    if (!f) { f = (type)resolve(symbol); __atomic_store_n(&name, f, __ATOMIC_RELEASE); }

#define FORWARD(ret, name, params, args)                                                   \
    ret name params {                                                                      \
        typedef ret(*fn_type) params;                                                      \
        RESOLVED(fn_type, fn, #name)                                                       \
        return f args;                                                                     \
    }

#define FORWARD_VOID(name, params, args)                                                   \
    void name params {                                                                     \
        typedef void(*fn_type) params;                                                     \
        RESOLVED(fn_type, fn, #name)                                                       \
        f args;                                                                            \
    }

FORWARD(CURL *, curl_easy_init, (void), ())
FORWARD_VOID(curl_easy_cleanup, (CURL *curl), (curl))
FORWARD_VOID(curl_easy_reset, (CURL *curl), (curl))
FORWARD(CURLcode, curl_easy_perform, (CURL *curl), (curl))
FORWARD(const char *, curl_easy_strerror, (CURLcode code), (code))
FORWARD(struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *string), (list, string))
/* curl_easy_send(3) and curl_easy_recv(3): the IMAP client's commands and the server's
 * answers over a connection libcurl made with CURLOPT_CONNECT_ONLY (TLS, login done). */
FORWARD(CURLcode, curl_easy_send, (CURL *curl, const void *buffer, size_t buflen, size_t *n), (curl, buffer, buflen, n))
FORWARD(CURLcode, curl_easy_recv, (CURL *curl, void *buffer, size_t buflen, size_t *n), (curl, buffer, buflen, n))
FORWARD_VOID(curl_slist_free_all, (struct curl_slist *list), (list))
/* The URL API (curl_url(3)): a page's address and a redirect's target are read by libcurl's
 * own parser, the one that decides where a request goes. */
FORWARD(CURLU *, curl_url, (void), ())
FORWARD_VOID(curl_url_cleanup, (CURLU *handle), (handle))
FORWARD(CURLUcode, curl_url_set, (CURLU *handle, CURLUPart what, const char *part, unsigned int flags), (handle, what, part, flags))
FORWARD(CURLUcode, curl_url_get, (CURLU *handle, CURLUPart what, char **part, unsigned int flags), (handle, what, part, flags))
FORWARD_VOID(curl_free, (void *p), (p))

/* curl_easy_setopt(3): "curl_easy_setopt(CURL *handle, CURLoption option, parameter)"; the
 * parameter is a long, a char *, a function pointer, an off_t or an object pointer according
 * to the option. Called through its variadic prototype, each with its one type. */
typedef CURLcode (*setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*getinfo_fn)(CURL *, CURLINFO, ...);

CURLcode reservoir_curl_setopt_long(CURL *curl, CURLoption option, long value) {
    RESOLVED(setopt_fn, fn, "curl_easy_setopt")
    return f(curl, option, value);
}

CURLcode reservoir_curl_setopt_string(CURL *curl, CURLoption option, const char *value) {
    RESOLVED(setopt_fn, fn, "curl_easy_setopt")
    return f(curl, option, value);
}

CURLcode reservoir_curl_setopt_pointer(CURL *curl, CURLoption option, void *value) {
    RESOLVED(setopt_fn, fn, "curl_easy_setopt")
    return f(curl, option, value);
}

CURLcode reservoir_curl_setopt_slist(CURL *curl, CURLoption option, struct curl_slist *value) {
    RESOLVED(setopt_fn, fn, "curl_easy_setopt")
    return f(curl, option, value);
}

CURLcode reservoir_curl_setopt_callback(CURL *curl, CURLoption option, curl_write_callback value) {
    RESOLVED(setopt_fn, fn, "curl_easy_setopt")
    return f(curl, option, value);
}

CURLcode reservoir_curl_setopt_opensocket(CURL *curl, CURLoption option, curl_opensocket_callback value) {
    RESOLVED(setopt_fn, fn, "curl_easy_setopt")
    return f(curl, option, value);
}

CURLcode reservoir_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    RESOLVED(getinfo_fn, fn, "curl_easy_getinfo")
    return f(curl, info, value);
}

CURLcode reservoir_curl_getinfo_socket(CURL *curl, CURLINFO info, curl_socket_t *value) {
    RESOLVED(getinfo_fn, fn, "curl_easy_getinfo")
    return f(curl, info, value);
}

CURLcode reservoir_curl_getinfo_string(CURL *curl, CURLINFO info, char **value) {
    RESOLVED(getinfo_fn, fn, "curl_easy_getinfo")
    return f(curl, info, value);
}
