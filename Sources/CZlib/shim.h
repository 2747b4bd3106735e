#ifndef RESERVOIR_CZLIB_SHIM_H
#define RESERVOIR_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro over inflateInit2_ (zlib.h): Swift cannot call macros. windowBits -15
   reads raw deflate data, without a zlib or gzip wrapper, as a zip entry stores it (APPNOTE 4.4.5). */
static inline int reservoir_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -15);
}
/* deflateInit2 likewise, raw deflate at `level`: the tests' zip writer and fuzz seeds. */
static inline int reservoir_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
/* inflateInit2 with windowBits 15: zlib-wrapped data (RFC 1950), as UIC 918.3 rail tickets carry. */
static inline int reservoir_inflate_init_zlib(z_stream *stream) {
    return inflateInit2(stream, 15);
}
#endif
