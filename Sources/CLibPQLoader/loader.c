#include "CLibPQLoader.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
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
