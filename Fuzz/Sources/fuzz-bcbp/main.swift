import BCBP

/// The boarding pass bar code reader, and the year of each leg's day near a date the input picks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard case .success(let pass) = BCBPReader.read(bytes) else { return 0 }
    precondition((1...BCBPLimits.maxLegs).contains(pass.legs.count), "leg count outside the format")
    let evidence = Int64(bytes.count) * 86_400 * 97 - 3_000_000_000
    for leg in pass.legs {
        if let day = leg.dayOfYear { _ = FlightDate.resolve(dayOfYear: day, near: evidence) }
    }
    return 0
}
