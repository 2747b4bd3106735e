#ifndef RESERVOIR_CLIBPQLOADER_H
#define RESERVOIR_CLIBPQLOADER_H
/* libpq is loaded with dlopen when a PostgreSQL store is first used, not at process start:
 * its dependency chain (Kerberos, LDAP, GnuTLS…) costs a per-message filter hook about 8 ms.
 * This target defines the libpq functions the store calls, each forwarding to libpq.so.5. */

/* 1 when libpq.so.5 can be loaded; 0 otherwise (the error is in reservoir_libpq_error()). */
int reservoir_libpq_load(void);
const char *reservoir_libpq_error(void);

/* Connects like PQconnectdbParams (expand_dbname 1) with notices silenced from the start and
 * the attempt bounded by connect_timeout. Returns NULL when out of memory or, with *timed_out
 * set, past the timeout; otherwise check PQstatus. */
struct pg_conn;
struct pg_conn *reservoir_pq_connect(const char *const *keywords, const char *const *values, int *timed_out);

#endif
