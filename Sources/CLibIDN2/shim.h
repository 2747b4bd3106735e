#ifndef RESERVOIR_CLIBIDN2_SHIM_H
#define RESERVOIR_CLIBIDN2_SHIM_H
/* libidn2: IDNA2008 (RFC 5891) with Unicode TR46 (UTS #46) mapping. Swift calls its functions
   directly; the shim only names the header. */
#include <idn2.h>
#endif
