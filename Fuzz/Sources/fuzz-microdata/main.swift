import Markup
import Reservations

/// Arbitrary HTML through libxml2, Microdata and JSON-LD extraction and the reservation reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let extraction = MarkupExtractor.extract(html: Array(UnsafeBufferPointer(start: data, count: size)))
    _ = ReservationReader.read(extraction.items, now: nil)
    return 0
}
