#ifndef RESERVOIR_CMILTER_SHIM_H
#define RESERVOIR_CMILTER_SHIM_H
#include <sys/socket.h>
#include <libmilter/mfapi.h>
#include <libmilter/mfdef.h>
/* The version a filter registers with: libmilter's own, a macro chosen by another macro. */
static inline int reservoir_milter_version(void) { return SMFI_VERSION; }
#endif
