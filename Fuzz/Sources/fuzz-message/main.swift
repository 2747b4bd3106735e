@testable import MIME

/// The whole message reader: header, part tree, every part decoded to text, the fields a
/// banner shows, and every diagnostic.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let message = Message(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    _ = message.subject
    _ = message.from
    _ = message.date
    _ = message.messageID
    _ = message.diagnostics
    for part in message.root.allParts where part.isLeaf {
        _ = message.text(of: part)
    }
    _ = message.htmlParts.count
    return 0
}
