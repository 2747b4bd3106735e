/// Bytes as lowercase hexadecimal text, two digits a byte (RFC 4648 §8's alphabet in lowercase):
/// digests, keys and the bytes a store keeps as text.
public enum Hexadecimal {
    public static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
