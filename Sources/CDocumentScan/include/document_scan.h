#ifndef RESERVOIR_DOCUMENT_SCAN_H
#define RESERVOIR_DOCUMENT_SCAN_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a document is: the media type its part or file says. */
typedef enum {
    RESERVOIR_DOCUMENT_PDF = 0,
    RESERVOIR_DOCUMENT_PNG = 1,
    RESERVOIR_DOCUMENT_JPEG = 2,
    RESERVOIR_DOCUMENT_GIF = 3,
} reservoir_document_kind;

/* The bounds of one document's reading (docs/RELIABILITY.md, "Documents"). */
typedef struct {
    int max_pages;             /* pages read; later ones are not */
    int64_t max_pixels;        /* pixels of one rendered page or decoded image */
    int first_dpi;             /* pages rendered at this resolution first... */
    int second_dpi;            /* ...and at this one when the first found nothing on the page */
    int max_codes;             /* bar codes reported, all pages together */
} reservoir_document_limits;

/* Called once per distinct bar code: its format (zxing-cpp's name: "Aztec", "PDF417",
   "QRCode", "DataMatrix"), the page (1-based; 1 for an image) and its raw bytes. */
typedef void (*reservoir_barcode_sink)(void *context, const char *format, int page, const uint8_t *bytes, size_t length);

/* The outcomes of a reading. */
typedef enum {
    RESERVOIR_DOCUMENT_OK = 0,
    RESERVOIR_DOCUMENT_UNREADABLE = 1,   /* not a document of its kind, or damaged */
    RESERVOIR_DOCUMENT_TRUNCATED = 2,    /* read, but pages or codes past the limits were left */
    RESERVOIR_DOCUMENT_TOO_LARGE = 3,    /* an image over max_pixels: not decoded */
} reservoir_document_status;

/* Reads every Aztec, PDF417, QR and Data Matrix code of a document: for a PDF, in the images
   its pages embed (at their own resolution) and on each page rendered (vector codes). */
reservoir_document_status reservoir_document_scan(const uint8_t *data, size_t length, reservoir_document_kind kind,
                                                  const reservoir_document_limits *limits, reservoir_barcode_sink sink,
                                                  void *context);

#ifdef __cplusplus
}
#endif
#endif
