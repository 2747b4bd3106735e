#ifndef RESERVOIR_CRESOLV_SHIM_H
#define RESERVOIR_CRESOLV_SHIM_H
#include <sys/types.h>
#include <netinet/in.h>
#include <arpa/nameser.h>
#include <arpa/inet.h>
#include <resolv.h>
#include <stdlib.h>

/* res_ninit and res_nclose are macros in glibc's resolv.h; wrap them so Swift can call them.
   A state is heap-allocated because struct __res_state is large and must not move. */
static inline res_state reservoir_res_new(void) {
    res_state st = (res_state)calloc(1, sizeof(struct __res_state));
    if (st && res_ninit(st) != 0) { free(st); return NULL; }
    return st;
}
static inline void reservoir_res_free(res_state st) {
    if (st) { res_nclose(st); free(st); }
}
static inline int reservoir_res_query(res_state st, const char *name, int type,
                                      unsigned char *answer, int anslen) {
    return res_nquery(st, name, ns_c_in, type, answer, anslen);
}
static inline int reservoir_h_errno(res_state st) { return st->res_h_errno; }
#endif
