import Foundation

@testable import MIME

/// Test helpers: messages as LF and CRLF, bytes from string literals.
enum Fixture {
    static func lf(_ text: String) -> [UInt8] {
        Array(text.replacingOccurrences(of: "\r\n", with: "\n").utf8)
    }

    static func crlf(_ text: String) -> [UInt8] {
        Array(text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n").utf8)
    }

    /// The message parsed both ways, LF first.
    static func both(_ text: String) -> [Message] {
        [Message(bytes: lf(text)), Message(bytes: crlf(text))]
    }

    static func leaves(_ message: Message) -> [MIMEPart] {
        message.root.allParts.filter(\.isLeaf)
    }
}
