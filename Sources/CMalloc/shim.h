#ifndef RESERVOIR_CMALLOC_SHIM_H
#define RESERVOIR_CMALLOC_SHIM_H
/* glibc's malloc tuning (mallopt), which the Glibc module does not export. */
#include <malloc.h>
#endif
