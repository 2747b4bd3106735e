import Markup
import Reservations

/// JSON-LD in an HTML script element, then the reservation reader on what was found.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let html =
        Array("<html><body><script type=\"application/ld+json\">".utf8)
        + Array(UnsafeBufferPointer(start: data, count: size)) + Array("</script></body></html>".utf8)
    let extraction = MarkupExtractor.extract(html: html)
    _ = ReservationReader.read(extraction.items, now: 1_800_000_000)
    return 0
}
