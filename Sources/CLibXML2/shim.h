#ifndef RESERVOIR_CLIBXML2_SHIM_H
#define RESERVOIR_CLIBXML2_SHIM_H
/* libxml2's headers pull in the system ICU when it is enabled; that ICU clashes with
   Foundation's own copy in any module that imports Foundation. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/parser.h>
#endif
