#include "CLibPQLoader.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <poll.h>
#include <errno.h>
#include <time.h>
#include <postgresql/libpq-fe.h>

static void *handle;
static char error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void open_libpq(void) {
    handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(error, sizeof error, "cannot load the PostgreSQL client library libpq.so.5 (%s)",
                 why ? why : "unknown error");
    }
}

int reservoir_libpq_load(void) {
    pthread_once(&once, open_libpq);
    return handle != NULL;
}

const char *reservoir_libpq_error(void) { return error; }

/* Callers check reservoir_libpq_load() before connecting; reaching a forwarder without libpq
 * is a programming error. */
static void *resolve(const char *name) {
    if (!reservoir_libpq_load()) {
        fprintf(stderr, "reservoir: %s\n", error);
        abort();
    }
    void *fn = dlsym(handle, name);
    if (!fn) {
        fprintf(stderr, "reservoir: libpq.so.5 has no %s\n", name);
        abort();
    }
    return fn;
}

#define FORWARD(ret, name, params, args)                                                   \
    ret name params {                                                                      \
        static ret(*fn) params;                                                            \
        ret(*f) params = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);                           \
        if (!f) { f = (ret(*) params)resolve(#name); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); } \
        return f args;                                                                     \
    }

#define FORWARD_VOID(name, params, args)                                                   \
    void name params {                                                                     \
        static void(*fn) params;                                                           \
        void(*f) params = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);                          \
        if (!f) { f = (void(*) params)resolve(#name); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); } \
        f args;                                                                            \
    }

FORWARD(PGconn *, PQconnectdbParams, (const char *const *keywords, const char *const *values, int expand_dbname),
        (keywords, values, expand_dbname))
FORWARD_VOID(PQfinish, (PGconn *conn), (conn))
FORWARD_VOID(PQreset, (PGconn *conn), (conn))
FORWARD(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg))
FORWARD_VOID(PQconninfoFree, (PQconninfoOption *options), (options))
FORWARD(ConnStatusType, PQstatus, (const PGconn *conn), (conn))
FORWARD(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn))
FORWARD(char *, PQerrorMessage, (const PGconn *conn), (conn))
FORWARD(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg))
FORWARD(PGresult *, PQexecParams,
        (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues,
         const int *paramLengths, const int *paramFormats, int resultFormat),
        (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
FORWARD(ExecStatusType, PQresultStatus, (const PGresult *res), (res))
FORWARD(char *, PQresultErrorMessage, (const PGresult *res), (res))
FORWARD(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))
FORWARD(int, PQntuples, (const PGresult *res), (res))
FORWARD(int, PQnfields, (const PGresult *res), (res))
FORWARD(char *, PQgetvalue, (const PGresult *res, int row, int column), (res, row, column))
FORWARD(int, PQgetisnull, (const PGresult *res, int row, int column), (res, row, column))
FORWARD_VOID(PQclear, (PGresult *res), (res))
FORWARD_VOID(PQfreemem, (void *ptr), (ptr))

FORWARD(PGconn *, PQconnectStartParams, (const char *const *keywords, const char *const *values, int expand_dbname),
        (keywords, values, expand_dbname))
FORWARD(PostgresPollingStatusType, PQconnectPoll, (PGconn *conn), (conn))
FORWARD(int, PQsocket, (const PGconn *conn), (conn))
FORWARD(PQconninfoOption *, PQconninfo, (PGconn *conn), (conn))

/* The connect_timeout in effect (URL, keywords or PGCONNECT_TIMEOUT); 0 when none. */
static int connect_timeout(PGconn *conn) {
    int seconds = 0;
    PQconninfoOption *options = PQconninfo(conn);
    for (PQconninfoOption *o = options; o && o->keyword; o++) {
        if (strcmp(o->keyword, "connect_timeout") == 0 && o->val) seconds = atoi(o->val);
    }
    if (options) PQconninfoFree(options);
    /* "Values less than 2 are interpreted as 2" (libpq §34.1.2, connect_timeout). */
    return seconds > 0 && seconds < 2 ? 2 : seconds;
}

static void ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

/* PQconnectdbParams with the notice processor set before the first byte is read: libpq's
 * default processor prints to stderr, and a filter hook must keep stderr to its own one-line
 * logs. The loop is the one of libpq §34.1 (PQconnectStartParams, then PQconnectPoll until OK
 * or FAILED, waiting for the socket as told). PQconnectPoll does not apply connect_timeout
 * (PQconnectdbParams does), so the loop bounds the whole attempt by it: past it, the
 * connection is finished, NULL is returned and *timed_out set. NULL without *timed_out: out
 * of memory. */
PGconn *reservoir_pq_connect(const char *const *keywords, const char *const *values, int *timed_out) {
    *timed_out = 0;
    PGconn *conn = PQconnectStartParams(keywords, values, 1);
    if (!conn) return NULL;
    PQsetNoticeProcessor(conn, ignore_notice, NULL);
    if (PQstatus(conn) == CONNECTION_BAD) return conn;
    int timeout_seconds = connect_timeout(conn);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    PostgresPollingStatusType state = PGRES_POLLING_WRITING;
    while (state != PGRES_POLLING_OK && state != PGRES_POLLING_FAILED) {
        int wait_ms = -1;
        if (timeout_seconds > 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
            long left = (long)timeout_seconds * 1000 - elapsed;
            if (left <= 0) {
                PQfinish(conn);
                *timed_out = 1;
                return NULL;
            }
            wait_ms = (int)left;
        }
        struct pollfd fd = { .fd = PQsocket(conn), .events = state == PGRES_POLLING_READING ? POLLIN : POLLOUT };
        if (fd.fd < 0) break;
        int ready = poll(&fd, 1, wait_ms);
        if (ready < 0 && errno != EINTR) break;
        if (ready <= 0) continue; /* interrupted, or the deadline: checked above */
        state = PQconnectPoll(conn);
    }
    return conn;
}
