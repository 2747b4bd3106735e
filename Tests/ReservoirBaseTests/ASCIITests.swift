import ReservoirBase
import Testing

@Suite struct ASCIITests {
    @Test("only A–Z change case; every other byte, non-ASCII included, stays")
    func lowercased() {
        for byte in UInt8.min...UInt8.max {
            let expected = (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
            #expect(ASCII.lowercased(byte) == expected)
        }
    }

    @Test("letters and digits as the ASCII ranges, not as the bytes with bit 0x20 folded")
    func classes() {
        for byte in UInt8.min...UInt8.max {
            let scalar = Unicode.Scalar(byte)
            #expect(ASCII.isLetter(byte) == (byte < 0x80 && scalar.properties.isAlphabetic))
            #expect(ASCII.isDigit(byte) == (0x30...0x39).contains(byte))
        }
    }

    @Test(
        "decimal numbers at a position",
        arguments: [
            ("2026-11-22", 0, 4, 2026 as Int?), ("2026-11-22", 5, 2, 11), ("2026-11-22", 8, 2, 22),
            ("2026-11-22", 8, 3, nil), ("2026-11-22", 3, 2, nil), ("", 0, 1, nil), ("0042", 0, 4, 42), ("12", -1, 1, nil),
        ])
    func decimal(text: String, from: Int, count: Int, value: Int?) {
        #expect(ASCII.decimal(Array(text.utf8), from: from, count: count) == value)
    }
}
