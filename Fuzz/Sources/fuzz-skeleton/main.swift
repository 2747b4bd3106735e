@testable import MIME

/// The large-message reader against the whole-message reader (differential): the input is
/// fed in pieces whose sizes come from its first byte, and the skeleton must parse into the
/// same header, tree and text as the whole input. Inputs stay far below the skeleton's limits,
/// so any difference is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let pieces = [1, 2, 3, 7, 64, 4096][Int(data[0]) % 6]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    var skeleton = MessageSkeleton()
    bytes.withUnsafeBufferPointer { buffer in
        var start = 0
        while start < buffer.count {
            let end = min(buffer.count, start + pieces)
            skeleton.feed(UnsafeBufferPointer(rebasing: buffer[start..<end]))
            start = end
        }
    }
    skeleton.finish()
    let whole = Message(bytes: bytes)
    let skeletal = Message(bytes: skeleton.bytes)
    precondition(skeleton.size == bytes.count)
    precondition(skeleton.bodyStart == whole.header.bodyStart, "body start")
    precondition(skeleton.bytes.starts(with: bytes[0..<whole.header.bodyStart]), "header bytes")
    let shape = { (m: Message) in m.root.allParts.map { "\($0.depth) \($0.contentType.mediaType) \($0.isAttachment)" } }
    precondition(shape(whole) == shape(skeletal), "tree")
    let texts = { (m: Message) in m.root.allParts.filter { $0.isLeaf && $0.contentType.type == "text" }.map { m.text(of: $0) } }
    precondition(texts(whole) == texts(skeletal), "text")
    precondition(whole.subject == skeletal.subject, "subject")
    return 0
}
