@testable import Markup

/// The quick JSON-LD script reader against libxml2's tree (differential): whenever the quick
/// reader answers for an HTML part, the items and diagnostics must be those of the tree.
/// The input is made valid UTF-8 first, as the MIME stage hands HTML parts over as text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let html = Array(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self).utf8)
    let quick = html.withUnsafeBufferPointer { buffer in
        ScriptScanner.needsTree(buffer) ? nil : ScriptScanner.jsonLDScripts(buffer)
    }
    guard quick != nil, MarkupSignature.mayContainMarkup(html) else { return 0 }
    let fast = MarkupExtractor.extract(html: html)
    let tree = MarkupExtractor.extractFromTree(html: html)
    precondition(fast.items == tree.items, "items differ from the tree")
    precondition(fast.diagnostics == tree.diagnostics, "diagnostics differ from the tree")
    return 0
}
