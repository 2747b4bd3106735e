import DNS

/// The offline keys file (zone-file subset) and lookups in it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let keys = KeysFile(text: String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    _ = keys.lookupTXT("s1._domainkey.example.com")
    return 0
}
