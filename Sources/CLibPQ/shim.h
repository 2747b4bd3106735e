#ifndef RESERVOIR_CLIBPQ_SHIM_H
#define RESERVOIR_CLIBPQ_SHIM_H
#include <postgresql/libpq-fe.h>
#include <postgresql/postgres_ext.h>
/* PG_DIAG_SQLSTATE is a character-literal macro ('C'); Swift does not import those. */
static inline int reservoir_pq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
/* PG_DIAG_MESSAGE_PRIMARY: the error message without the severity prefix and context. */
static inline int reservoir_pq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
#endif
