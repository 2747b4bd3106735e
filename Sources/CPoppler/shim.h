#ifndef RESERVOIR_CPOPPLER_SHIM_H
#define RESERVOIR_CPOPPLER_SHIM_H
/* poppler-glib (PDF) and cairo (its page renderer, and PNG reading): the document reader's
   libraries, linked by reservoir-document alone. */
#include <poppler.h>
#include <cairo.h>
#endif
