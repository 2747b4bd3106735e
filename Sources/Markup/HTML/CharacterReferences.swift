import CLibXML2
import ReservoirBase

/// HTML character references (`&quot;`, `&#34;`, `&#x22;`) decoded in text that libxml2 left
/// raw: script content is raw text (HTML §13.1.2.6), but senders' templates still encode it.
enum CharacterReferences {
    /// Longest name looked up; HTML's longest named reference is 31 characters.
    static let maximumNameLength = 32

    /// `bytes` with every well-formed reference ending in ";" replaced by its UTF-8 character;
    /// anything else is kept as written. Nil when there was nothing to decode.
    static func decode(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.contains(UInt8(ascii: "&")) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var decodedAny = false
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "&"),
                let (scalar, length) = reference(in: bytes, at: index)
            else {
                output.append(bytes[index])
                index += 1
                continue
            }
            UTF8.encode(scalar) { output.append($0) }
            index += length
            decodedAny = true
        }
        return decodedAny ? output : nil
    }

    /// The character of the reference starting at `start` ("&") and its length with ";".
    private static func reference(in bytes: [UInt8], at start: Int) -> (Unicode.Scalar, Int)? {
        let end = min(bytes.count, start + maximumNameLength + 3)
        guard let semicolon = bytes[start..<end].firstIndex(of: UInt8(ascii: ";")), semicolon > start + 1 else { return nil }
        let body = bytes[(start + 1)..<semicolon]
        var codePoint: UInt32?
        if body.first == UInt8(ascii: "#") {
            // HTML §13.2.5.72-80: numeric character references, decimal or hexadecimal.
            let digits = body.dropFirst()
            if let x = digits.first, x == UInt8(ascii: "x") || x == UInt8(ascii: "X") {
                codePoint = UInt32(String(decoding: digits.dropFirst(), as: UTF8.self), radix: 16)
            } else {
                codePoint = UInt32(String(decoding: digits, as: UTF8.self), radix: 10)
            }
        } else {
            guard body.allSatisfy({ ASCII.isLetter($0) || ASCII.isDigit($0) }) else { return nil }
            let name = Array(body) + [0]
            codePoint = name.withUnsafeBufferPointer { buffer in
                // libxml2: "htmlEntityLookup: Lookup the given entity in EntitiesTable" (HTML 4's).
                htmlEntityLookup(buffer.baseAddress).map { UInt32($0.pointee.value) }
            }
            // HTML5 added &apos;, which templates use for JSON's single quotes.
            if codePoint == nil, body.elementsEqual("apos".utf8) { codePoint = 0x27 }
        }
        guard let codePoint, let scalar = Unicode.Scalar(codePoint), codePoint != 0 else { return nil }
        return (scalar, semicolon - start + 1)
    }
}
