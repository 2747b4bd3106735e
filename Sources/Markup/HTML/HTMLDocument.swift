import CLibXML2

/// A parsed HTML part. Owns the libxml2 document and frees it; `HTMLElement`s read from it
/// are valid only while it lives.
final class HTMLDocument {
    private let document: htmlDocPtr

    /// libxml2: "htmlReadMemory: parse an XML in-memory document and build a tree." Errors are
    /// recovered (HTML_PARSE_RECOVER) and silenced; no network access; the encoding is fixed to
    /// UTF-8 and a `<meta charset>` in the document is ignored, since the MIME stage already
    /// decoded the part to UTF-8 text. XML_PARSE_HUGE lifts libxml2's nesting limit of 256,
    /// which otherwise ends the parse early in mail with many unclosed tags (forwarded
    /// messages pile up `<font>`s); the size cap above bounds the work instead, and every walk
    /// over the tree here is iterative.
    init?(utf8 bytes: [UInt8]) {
        guard bytes.count <= MarkupLimits.maximumHTMLBytes, !bytes.isEmpty else { return nil }
        _ = Self.parserInitialized
        let options =
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_IGNORE_ENC.rawValue | HTML_PARSE_COMPACT.rawValue | XML_PARSE_HUGE.rawValue
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                htmlReadMemory(chars.baseAddress, Int32(chars.count), nil, "UTF-8", Int32(bitPattern: options))
            }
        }
        guard let parsed else { return nil }
        document = parsed
    }

    deinit {
        xmlFreeDoc(document)
    }

    /// libxml2: "xmlInitParser: Initialization function for the XML parser. This is not
    /// reentrant. Call once before processing in case of use in multithreaded programs."
    /// A static `let` runs its initializer exactly once, whatever thread gets there first.
    private static let parserInitialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// Every element in tree order, with whether an ancestor carries `itemscope`. One
    /// iterative pass over the tree, so depth costs no stack.
    func walkElements(_ visit: (HTMLElement, _ insideItemScope: Bool) -> Void) {
        let documentNode = UnsafeMutableRawPointer(document)
        var scopes = 0
        var next: xmlNodePtr? = document.pointee.children
        while let node = next {
            let element = HTMLElement(node)
            let isElement = node.pointee.type == XML_ELEMENT_NODE
            if isElement { visit(element, scopes > 0) }
            if isElement, let child = node.pointee.children {
                if element.hasAttribute("itemscope") { scopes += 1 }
                next = child
                continue
            }
            var current = node
            next = nil
            while true {
                if let sibling = current.pointee.next {
                    next = sibling
                    break
                }
                guard let parent = current.pointee.parent, UnsafeMutableRawPointer(parent) != documentNode else { break }
                if HTMLElement(parent).hasAttribute("itemscope") { scopes -= 1 }
                current = parent
            }
        }
    }
}

/// An element of an `HTMLDocument`, compared by identity. libxml2's HTML parser lowercases
/// element and attribute names.
struct HTMLElement: Hashable {
    let node: xmlNodePtr

    init(_ node: xmlNodePtr) {
        self.node = node
    }

    var name: String {
        guard let name = node.pointee.name else { return "" }
        return String(cString: name)
    }

    func isNamed(_ expected: StaticString) -> Bool {
        guard let name = node.pointee.name else { return false }
        return Self.equals(name, expected)
    }

    func hasAttribute(_ name: StaticString) -> Bool {
        findAttribute(name) != nil
    }

    /// The attribute's value with character references decoded; "" for an attribute given
    /// without a value; nil when absent.
    func attribute(_ name: StaticString) -> String? {
        guard let attribute = findAttribute(name) else { return nil }
        var bytes: [UInt8] = []
        var child = attribute.pointee.children
        while let text = child {
            if let content = text.pointee.content { Self.append(content, to: &bytes) }
            child = text.pointee.next
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    var parent: HTMLElement? {
        guard let parent = node.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE else { return nil }
        return HTMLElement(parent)
    }

    var childElements: [HTMLElement] {
        var result: [HTMLElement] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { result.append(HTMLElement(current)) }
            child = current.pointee.next
        }
        return result
    }

    var nextSiblingElement: HTMLElement? {
        var sibling = node.pointee.next
        while let current = sibling {
            if current.pointee.type == XML_ELEMENT_NODE { return HTMLElement(current) }
            sibling = current.pointee.next
        }
        return nil
    }

    /// The concatenated text and CDATA of every descendant (DOM `textContent`), walked
    /// iteratively, cut at `limit` bytes.
    func textContentBytes(limit: Int = MarkupLimits.maximumPropertyTextLength * 4) -> [UInt8] {
        var bytes: [UInt8] = []
        var next = node.pointee.children
        while let current = next, bytes.count < limit {
            let type = current.pointee.type
            if type == XML_TEXT_NODE || type == XML_CDATA_SECTION_NODE, let content = current.pointee.content {
                Self.append(content, to: &bytes)
            }
            if type == XML_ELEMENT_NODE, let child = current.pointee.children {
                next = child
                continue
            }
            var climbing = current
            next = nil
            while climbing != node {
                if let sibling = climbing.pointee.next {
                    next = sibling
                    break
                }
                guard let parent = climbing.pointee.parent else { break }
                climbing = parent
            }
        }
        return bytes
    }

    private func findAttribute(_ name: StaticString) -> xmlAttrPtr? {
        var attribute = node.pointee.properties
        while let current = attribute {
            if let attributeName = current.pointee.name, Self.equals(attributeName, name) { return current }
            attribute = current.pointee.next
        }
        return nil
    }

    private static func equals(_ cString: UnsafePointer<xmlChar>, _ expected: StaticString) -> Bool {
        let count = expected.utf8CodeUnitCount
        let bytes = expected.utf8Start
        for index in 0..<count where cString[index] != bytes[index] { return false }
        return cString[count] == 0
    }

    private static func append(_ cString: UnsafePointer<xmlChar>, to bytes: inout [UInt8]) {
        var index = 0
        while cString[index] != 0 {
            bytes.append(cString[index])
            index += 1
        }
    }
}
