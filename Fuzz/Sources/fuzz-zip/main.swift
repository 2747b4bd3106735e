import Zip

/// The zip reader: central directory, local headers, inflation, limits on arbitrary bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let archive = ZipArchive.read(Array(UnsafeBufferPointer(start: data, count: size)))
    var total = 0
    for entry in archive.entries { total += entry.data?.count ?? 0 }
    precondition(total <= ZipLimits.maxTotalBytes, "inflated past the total limit")
    return 0
}
