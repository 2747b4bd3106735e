#ifndef RESERVOIR_CZXING_SHIM_H
#define RESERVOIR_CZXING_SHIM_H
/* zxing-cpp (bar codes), libjpeg and giflib (images in mail): the document reader's libraries.
   zxing-cpp is C++; CDocumentScan includes its headers itself. */
#include <stdio.h>
#include <jpeglib.h>
#include <gif_lib.h>
#endif
