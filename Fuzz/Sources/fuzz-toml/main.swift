import TOML

/// The configuration file's reader on arbitrary bytes: it returns a table or an error with a
/// position inside the document, and a document it accepts reads the same twice.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch TOMLReader.read(bytes) {
    case .success(let table):
        guard case .success(let again) = TOMLReader.read(bytes), again.keys == table.keys else { fatalError("not deterministic") }
    case .failure(let error):
        let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        guard error.position.line >= 1, error.position.line <= lines, error.position.column >= 1 else {
            fatalError("error outside the document: \(error)")
        }
    }
    return 0
}
