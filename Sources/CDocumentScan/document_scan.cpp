// The document reader's C++ part: poppler-glib renders PDF pages and hands over the images they
// embed, cairo reads PNG, libjpeg and giflib the other images, zxing-cpp finds the bar codes.
// Linked into reservoir-document alone (docs/ARCHITECTURE.md), which runs it under resource
// limits in a process of its own.
#include "document_scan.h"

#include <poppler.h>
#include <cairo.h>
#include <stdio.h>
#include <jpeglib.h>
#include <gif_lib.h>
#include <setjmp.h>

#include <ZXing/ReadBarcode.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace {

struct Reader {
    const reservoir_document_limits *limits;
    reservoir_barcode_sink sink;
    void *context;
    std::set<std::string> seen;
    int reported = 0;
    bool truncated = false;

    // Returns how many new codes the image held.
    int scan(const uint8_t *pixels, int width, int height, int stride, ZXing::ImageFormat format, int page) {
        ZXing::DecodeHints hints;
        hints.setFormats(ZXing::BarcodeFormat::Aztec | ZXing::BarcodeFormat::PDF417 | ZXing::BarcodeFormat::QRCode |
                         ZXing::BarcodeFormat::DataMatrix);
        hints.setTryHarder(true);
        hints.setTryRotate(true);
        hints.setTryDownscale(true);
        hints.setMaxNumberOfSymbols(static_cast<uint8_t>(std::min(limits->max_codes, 255)));
        ZXing::ImageView view(pixels, width, height, format, stride);
        int found = 0;
        for (const auto &result : ZXing::ReadBarcodes(view, hints)) {
            if (!result.isValid()) continue;
            const auto &bytes = result.bytes();
            std::string key = std::string(ZXing::ToString(result.format())) + ":" + std::string(bytes.begin(), bytes.end());
            if (seen.count(key)) continue;
            if (reported >= limits->max_codes) {
                truncated = true;
                break;
            }
            seen.insert(key);
            reported++;
            found++;
            std::string name(ZXing::ToString(result.format()));
            sink(context, name.c_str(), page, bytes.data(), bytes.size());
        }
        return found;
    }

    int scanSurface(cairo_surface_t *surface, int page) {
        cairo_surface_flush(surface);
        auto format = cairo_image_surface_get_format(surface);
        if (format != CAIRO_FORMAT_ARGB32 && format != CAIRO_FORMAT_RGB24) return 0;
        int width = cairo_image_surface_get_width(surface), height = cairo_image_surface_get_height(surface);
        if (width <= 0 || height <= 0 || int64_t(width) * height > limits->max_pixels) return 0;
        // cairo's 32-bit pixels are native-endian ARGB: B, G, R, A in memory on little-endian.
        return scan(cairo_image_surface_get_data(surface), width, height, cairo_image_surface_get_stride(surface),
                    ZXing::ImageFormat::BGRX, page);
    }
};

struct Bytes {
    const uint8_t *data;
    size_t length;
    size_t offset;
};

cairo_status_t readBytes(void *closure, unsigned char *out, unsigned int length) {
    auto *bytes = static_cast<Bytes *>(closure);
    if (bytes->length - bytes->offset < length) return CAIRO_STATUS_READ_ERROR;
    memcpy(out, bytes->data + bytes->offset, length);
    bytes->offset += length;
    return CAIRO_STATUS_SUCCESS;
}

reservoir_document_status scanPDF(Reader &reader, const uint8_t *data, size_t length) {
    GBytes *bytes = g_bytes_new_static(data, length);
    GError *error = nullptr;
    PopplerDocument *document = poppler_document_new_from_bytes(bytes, nullptr, &error);
    if (!document) {
        if (error) g_error_free(error);
        g_bytes_unref(bytes);
        return RESERVOIR_DOCUMENT_UNREADABLE;
    }
    int pages = poppler_document_get_n_pages(document);
    if (pages > reader.limits->max_pages) {
        reader.truncated = true;
        pages = reader.limits->max_pages;
    }
    for (int index = 0; index < pages && reader.reported < reader.limits->max_codes; index++) {
        PopplerPage *page = poppler_document_get_page(document, index);
        if (!page) continue;
        int found = 0;
        // The images the page embeds, at their own resolution.
        GList *mappings = poppler_page_get_image_mapping(page);
        for (GList *item = mappings; item; item = item->next) {
            auto *mapping = static_cast<PopplerImageMapping *>(item->data);
            cairo_surface_t *image = poppler_page_get_image(page, mapping->image_id);
            if (!image) continue;
            found += reader.scanSurface(image, index + 1);
            cairo_surface_destroy(image);
        }
        poppler_page_free_image_mapping(mappings);
        // The page as drawn: codes made of vector paths, and any the images alone did not give.
        double width = 0, height = 0;
        poppler_page_get_size(page, &width, &height);
        for (int dpi : {reader.limits->first_dpi, reader.limits->second_dpi}) {
            if (dpi <= 0 || width <= 0 || height <= 0) break;
            double scale = dpi / 72.0;
            double pixelsWide = width * scale, pixelsHigh = height * scale;
            if (pixelsWide * pixelsHigh > double(reader.limits->max_pixels) || pixelsWide > 32767 || pixelsHigh > 32767) {
                reader.truncated = true;
                break;
            }
            cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, int(pixelsWide), int(pixelsHigh));
            if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
                cairo_surface_destroy(surface);
                break;
            }
            cairo_t *cr = cairo_create(surface);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_paint(cr);
            cairo_scale(cr, scale, scale);
            poppler_page_render_for_printing(page, cr);
            cairo_destroy(cr);
            int more = reader.scanSurface(surface, index + 1);
            cairo_surface_destroy(surface);
            found += more;
            if (found > 0) break;
        }
        g_object_unref(page);
    }
    g_object_unref(document);
    g_bytes_unref(bytes);
    return reader.truncated ? RESERVOIR_DOCUMENT_TRUNCATED : RESERVOIR_DOCUMENT_OK;
}

reservoir_document_status scanPNG(Reader &reader, const uint8_t *data, size_t length) {
    Bytes bytes{data, length, 0};
    cairo_surface_t *surface = cairo_image_surface_create_from_png_stream(readBytes, &bytes);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        return RESERVOIR_DOCUMENT_UNREADABLE;
    }
    int64_t pixels = int64_t(cairo_image_surface_get_width(surface)) * cairo_image_surface_get_height(surface);
    reservoir_document_status status = RESERVOIR_DOCUMENT_OK;
    if (pixels > reader.limits->max_pixels) {
        status = RESERVOIR_DOCUMENT_TOO_LARGE;
    } else {
        reader.scanSurface(surface, 1);
    }
    cairo_surface_destroy(surface);
    return status;
}

struct JPEGError {
    jpeg_error_mgr manager;
    jmp_buf jump;
};

void jpegFailed(j_common_ptr info) { longjmp(reinterpret_cast<JPEGError *>(info->err)->jump, 1); }
void jpegQuiet(j_common_ptr, int) {}

reservoir_document_status scanJPEG(Reader &reader, const uint8_t *data, size_t length) {
    jpeg_decompress_struct info;
    JPEGError error;
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = jpegFailed;
    error.manager.emit_message = jpegQuiet;
    std::vector<uint8_t> pixels;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        return RESERVOIR_DOCUMENT_UNREADABLE;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, static_cast<unsigned long>(length));
    if (jpeg_read_header(&info, TRUE) != JPEG_HEADER_OK) {
        jpeg_destroy_decompress(&info);
        return RESERVOIR_DOCUMENT_UNREADABLE;
    }
    // The size comes from the header: checked before a byte of pixels is decoded.
    if (int64_t(info.image_width) * info.image_height > reader.limits->max_pixels) {
        jpeg_destroy_decompress(&info);
        return RESERVOIR_DOCUMENT_TOO_LARGE;
    }
    info.out_color_space = JCS_GRAYSCALE;
    jpeg_start_decompress(&info);
    int width = int(info.output_width), height = int(info.output_height);
    pixels.resize(size_t(width) * height);
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels.data() + size_t(info.output_scanline) * width;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    reader.scan(pixels.data(), width, height, width, ZXing::ImageFormat::Lum, 1);
    return RESERVOIR_DOCUMENT_OK;
}

int gifRead(GifFileType *file, GifByteType *out, int length) {
    auto *bytes = static_cast<Bytes *>(file->UserData);
    size_t left = bytes->length - bytes->offset;
    size_t count = std::min(left, size_t(length < 0 ? 0 : length));
    memcpy(out, bytes->data + bytes->offset, count);
    bytes->offset += count;
    return int(count);
}

reservoir_document_status scanGIF(Reader &reader, const uint8_t *data, size_t length) {
    Bytes bytes{data, length, 0};
    int error = 0;
    GifFileType *file = DGifOpen(&bytes, gifRead, &error);
    if (!file) return RESERVOIR_DOCUMENT_UNREADABLE;
    // The screen's size comes first: refused before any frame is decoded.
    if (int64_t(file->SWidth) * file->SHeight > reader.limits->max_pixels || file->SWidth <= 0 || file->SHeight <= 0) {
        DGifCloseFile(file, &error);
        return RESERVOIR_DOCUMENT_TOO_LARGE;
    }
    if (DGifSlurp(file) != GIF_OK || file->ImageCount < 1) {
        DGifCloseFile(file, &error);
        return RESERVOIR_DOCUMENT_UNREADABLE;
    }
    // The first frame, in grey: a bar code is dark on light.
    SavedImage *frame = &file->SavedImages[0];
    ColorMapObject *colors = frame->ImageDesc.ColorMap ? frame->ImageDesc.ColorMap : file->SColorMap;
    int width = frame->ImageDesc.Width, height = frame->ImageDesc.Height;
    if (!colors || width <= 0 || height <= 0 || int64_t(width) * height > reader.limits->max_pixels) {
        DGifCloseFile(file, &error);
        return RESERVOIR_DOCUMENT_UNREADABLE;
    }
    std::vector<uint8_t> grey(size_t(width) * height);
    for (size_t index = 0; index < grey.size(); index++) {
        int entry = frame->RasterBits[index];
        if (entry >= colors->ColorCount) entry = 0;
        const GifColorType &color = colors->Colors[entry];
        grey[index] = uint8_t((color.Red * 299 + color.Green * 587 + color.Blue * 114) / 1000);
    }
    DGifCloseFile(file, &error);
    reader.scan(grey.data(), width, height, width, ZXing::ImageFormat::Lum, 1);
    return RESERVOIR_DOCUMENT_OK;
}

}  // namespace

extern "C" reservoir_document_status reservoir_document_scan(const uint8_t *data, size_t length, reservoir_document_kind kind,
                                                             const reservoir_document_limits *limits, reservoir_barcode_sink sink,
                                                             void *context) {
    Reader reader{limits, sink, context, {}, 0, false};
    try {
        switch (kind) {
        case RESERVOIR_DOCUMENT_PDF: return scanPDF(reader, data, length);
        case RESERVOIR_DOCUMENT_PNG: return scanPNG(reader, data, length);
        case RESERVOIR_DOCUMENT_JPEG: return scanJPEG(reader, data, length);
        case RESERVOIR_DOCUMENT_GIF: return scanGIF(reader, data, length);
        }
    } catch (...) {
        return RESERVOIR_DOCUMENT_UNREADABLE;
    }
    return RESERVOIR_DOCUMENT_UNREADABLE;
}
