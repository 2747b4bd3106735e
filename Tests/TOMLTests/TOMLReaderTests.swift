import Testing

@testable import TOML

/// The reader against the examples of TOML 1.0.0's sections, and the errors it must give.
@Suite("TOMLReader: TOML 1.0.0")
struct TOMLReaderTests {
    static func table(_ text: String) throws -> TOMLTable {
        try TOMLReader.read(text).get()
    }

    static func error(_ text: String) -> TOMLError? {
        if case .failure(let error) = TOMLReader.read(text) { error } else { nil }
    }

    @Test("Comment, Key/Value Pair, Keys: bare, quoted and dotted keys")
    func keys() throws {
        let t = try Self.table(
            """
            # This is a full-line comment
            key = "value"  # This is a comment at the end of a line
            bare_key = 1
            bare-key = 2
            1234 = 3
            "127.0.0.1" = "value"
            "ʎǝʞ" = "value"
            'quoted "value"' = "value"
            physical.color = "orange"
            site."google.com" = true
            fruit . flavor = "banana"
            """)
        #expect(t.keys == ["key", "bare_key", "bare-key", "1234", "127.0.0.1", "ʎǝʞ", "quoted \"value\"", "physical", "site", "fruit"])
        #expect(t["key"]?.value == .string("value"))
        #expect(t["key"]?.position == TOMLPosition(line: 2, column: 1))
        guard case .table(let site)? = t["site"]?.value else {
            Issue.record("site is a table")
            return
        }
        #expect(site["google.com"]?.value == .boolean(true))
        guard case .table(let fruit)? = t["fruit"]?.value else {
            Issue.record("fruit is a table")
            return
        }
        #expect(fruit["flavor"]?.value == .string("banana"))
    }

    @Test("String: basic, multi-line basic, literal, multi-line literal")
    func strings() throws {
        let t = try Self.table(
            #"""
            str = "I'm a string. \"You can quote me\". Name\tJos\u00E9\nLocation\tSF. \U0001F600"
            str1 = """
            Roses are red
            Violets are blue"""
            str2 = """\
                   The quick brown \
                   fox jumps over \
                     the lazy dog.\
                   """
            str4 = """Here are two quotation marks: "". Simple enough."""
            str5 = """Here are three quotation marks: ""\"."""
            str7 = """"This," she said, "is just a pointless statement.""""
            winpath = 'C:\Users\nodejs\templates'
            quoted = 'Tom "Dubs" Preston-Werner'
            regex2 = '''I [dw]on't need \d{2} apples'''
            lines = '''
            The first newline is
            trimmed in raw strings.
            '''
            quot15 = '''Here are fifteen quotation marks: """""""""""""""'''
            """#)
        #expect(t["str"]?.value == .string("I'm a string. \"You can quote me\". Name\tJosé\nLocation\tSF. 😀"))
        #expect(t["str1"]?.value == .string("Roses are red\nViolets are blue"))
        #expect(t["str2"]?.value == .string("The quick brown fox jumps over the lazy dog."))
        #expect(t["str4"]?.value == .string("Here are two quotation marks: \"\". Simple enough."))
        #expect(t["str5"]?.value == .string("Here are three quotation marks: \"\"\"."))
        #expect(t["str7"]?.value == .string("\"This,\" she said, \"is just a pointless statement.\""))
        #expect(t["winpath"]?.value == .string(#"C:\Users\nodejs\templates"#))
        #expect(t["quoted"]?.value == .string("Tom \"Dubs\" Preston-Werner"))
        #expect(t["regex2"]?.value == .string(#"I [dw]on't need \d{2} apples"#))
        #expect(t["lines"]?.value == .string("The first newline is\ntrimmed in raw strings.\n"))
        #expect(t["quot15"]?.value == .string("Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\""))
    }

    @Test("Integer and Float: signs, underscores, bases, exponents, inf and nan")
    func numbers() throws {
        let t = try Self.table(
            """
            a = +99
            b = -17
            c = 1_000
            d = 0xDEAD_BEEF
            e = 0o755
            f = 0b1101_0110
            g = 9_223_372_036_854_775_807
            h = -9223372036854775808
            i = 3.1415
            j = -0.01
            k = 5e+22
            l = 6.626e-34
            m = 224_617.445_991_228
            n = -inf
            o = nan
            p = -0.0
            q = 1E06
            """)
        let expected: [(String, TOMLValue)] = [
            ("a", .integer(99)), ("b", .integer(-17)), ("c", .integer(1000)), ("d", .integer(0xDEAD_BEEF)), ("e", .integer(0o755)),
            ("f", .integer(0b1101_0110)), ("g", .integer(.max)), ("h", .integer(.min)), ("i", .float(3.1415)), ("j", .float(-0.01)),
            ("k", .float(5e22)), ("l", .float(6.626e-34)), ("m", .float(224_617.445_991_228)), ("n", .float(-.infinity)), ("q", .float(1e6)),
        ]
        for (key, value) in expected { #expect(t[key]?.value == value, "\(key)") }
        guard case .float(let nan)? = t["o"]?.value else {
            Issue.record("nan is a float")
            return
        }
        #expect(nan.isNaN)
    }

    @Test("Array, Inline Table, Table, Array of Tables")
    func structure() throws {
        let t = try Self.table(
            """
            integers = [ 1, 2, 3 ]
            nested_mixed_array = [ [ 1, 2 ], ["a", "b", "c"] ]
            integers3 = [
              1, # one
              2, # trailing comma
            ]
            point = { x = 1, y = 2 }
            animal = { type.name = "pug" }

            [dog."tater.man"]
            type.name = "pug"

            [fruit]
            apple.color = "red"

            [fruit.apple.texture]
            smooth = true

            [[products]]
            name = "Hammer"

            [[products]]

            [[products]]
            name = "Nail"
            """)
        let columns = [14, 17, 20]
        var integers: [TOMLEntry] = []
        for (index, column) in columns.enumerated() {
            integers.append(TOMLEntry(value: .integer(Int64(index + 1)), position: TOMLPosition(line: 1, column: column)))
        }
        #expect(t["integers"]?.value == .array(integers))
        guard case .array(let products)? = t["products"]?.value else {
            Issue.record("products is an array")
            return
        }
        #expect(products.count == 3)
        guard case .table(let point)? = t["point"]?.value else {
            Issue.record("point is a table")
            return
        }
        #expect(point["y"]?.value == .integer(2))
        guard case .array(let three)? = t["integers3"]?.value else {
            Issue.record("integers3 is an array")
            return
        }
        #expect(three.count == 2)
    }

    @Test("Offset Date-Time, Local Date-Time, Local Date, Local Time")
    func dates() throws {
        let t = try Self.table(
            """
            odt1 = 1979-05-27T07:32:00Z
            odt2 = 1979-05-27T00:32:00.999999-07:00
            odt4 = 1979-05-27 07:32:00Z
            ldt1 = 1979-05-27T07:32:00
            ld1 = 1979-05-27 # a date
            lt1 = 00:32:00.999999
            """)
        #expect(t["odt4"]?.value == .dateTime(TOMLDateTime(kind: .offsetDateTime, text: "1979-05-27 07:32:00Z")))
        #expect(t["ldt1"]?.value == .dateTime(TOMLDateTime(kind: .localDateTime, text: "1979-05-27T07:32:00")))
        #expect(t["ld1"]?.value == .dateTime(TOMLDateTime(kind: .localDate, text: "1979-05-27")))
        #expect(t["lt1"]?.value == .dateTime(TOMLDateTime(kind: .localTime, text: "00:32:00.999999")))
    }

    static let invalid: [(String, TOMLError.Code, Int, Int)] = [
        ("key = # INVALID", .expectedValue, 1, 7),
        ("first = \"Tom\" last = \"Preston-Werner\"", .expectedEndOfLine, 1, 15),
        ("= \"no key name\"", .expectedKey, 1, 1),
        ("name = \"Tom\"\nname = \"Pradyun\"", .duplicateKey, 2, 1),
        ("spelling = \"favorite\"\n\"spelling\" = \"favourite\"", .duplicateKey, 2, 1),
        ("fruit.apple = 1\nfruit.apple.smooth = true", .notATable, 2, 7),
        ("[fruit]\napple = \"red\"\n\n[fruit]\norange = \"orange\"", .duplicateTable, 4, 1),
        ("[fruit]\napple = \"red\"\n\n[fruit.apple]\ntexture = \"smooth\"", .notATable, 4, 1),
        ("[fruit]\napple.color = \"red\"\n[fruit.apple]", .duplicateTable, 3, 1),
        ("[a.b.c]\nz = 9\n[a]\nb.c.t = 1", .duplicateTable, 4, 3),
        ("[product]\ntype = { name = \"Nail\" }\ntype.edible = false", .immutable, 3, 1),
        ("[product]\ntype.name = \"Nail\"\ntype = { edible = false }", .duplicateKey, 3, 1),
        ("fruits = []\n[[fruits]]", .immutable, 2, 1),
        ("[[fruits]]\n[fruits]", .duplicateTable, 2, 1),
        ("a = { x = 1, }", .expectedKey, 1, 14),
        ("a = { x = 1\n}", .unterminatedInlineTable, 1, 12),
        ("a = [1 2]", .unterminatedArray, 1, 8),
        ("a = \"abc", .unterminatedString, 1, 5),
        ("a = \"\\x\"", .invalidEscape, 1, 6),
        ("a = \"\\uD800\"", .invalidEscape, 1, 6),
        ("a = 'a\u{01}'", .controlCharacter, 1, 7),
        ("a = 1 # \u{7F}", .controlCharacter, 1, 9),
        ("a = 1\rb = 2", .controlCharacter, 1, 6),
        ("a = 01", .invalidNumber, 1, 5),
        ("a = 1__0", .invalidNumber, 1, 5),
        ("a = _1", .expectedValue, 1, 5),
        ("a = 1.", .invalidNumber, 1, 5),
        ("a = .5", .expectedValue, 1, 5),
        ("a = +0x10", .invalidNumber, 1, 5),
        ("a = 9223372036854775808", .integerOutOfRange, 1, 5),
        ("a = 1979-02-29", .invalidDateTime, 1, 5),
        ("a = 07:32", .invalidDateTime, 1, 5),
        ("a = TRUE", .expectedValue, 1, 5),
        ("a = truex", .expectedValue, 1, 5),
        ("a = \"\"\"x\"\"\"\"\"\"", .unterminatedString, 1, 14),
        ("[a]]", .expectedEndOfLine, 1, 4),
        ("[ [a]]", .expectedKey, 1, 3),
        ("ä = 1", .expectedKey, 1, 1),
        ("\"\"\"a\"\"\" = 1", .expectedKey, 1, 1),
    ]

    @Test("what TOML 1.0.0 calls invalid is refused, at the line and column where reading stopped", arguments: invalid)
    func refusals(_ text: String, _ code: TOMLError.Code, _ line: Int, _ column: Int) {
        let error = Self.error(text)
        #expect(error?.code == code, "\(error.map(String.init(describing:)) ?? "accepted")")
        #expect(error?.position == TOMLPosition(line: line, column: column), "\(error.map(String.init(describing:)) ?? "accepted")")
    }

    @Test("invalid UTF-8 is refused where it starts")
    func invalidUTF8() {
        let error: TOMLError? = if case .failure(let e) = TOMLReader.read(Array("a = \"".utf8) + [0xC3, 0x28] + Array("\"".utf8)) { e } else { nil }
        #expect(error?.code == .invalidUTF8)
        #expect(error?.position == TOMLPosition(line: 1, column: 6))
    }

    @Test("the limits: document size, nesting, string length")
    func limits() {
        #expect(Self.error(String(repeating: "#", count: TOMLLimits.maximumDocumentBytes + 1))?.code == .documentTooLarge)
        #expect(Self.error("a = " + String(repeating: "[", count: TOMLLimits.maximumDepth + 1))?.code == .nestingTooDeep)
        #expect(Self.error(String(repeating: "a.", count: TOMLLimits.maximumDepth) + "a = 1")?.code == .nestingTooDeep)
        #expect(Self.error("a = \"" + String(repeating: "x", count: TOMLLimits.maximumStringBytes + 1) + "\"")?.code == .stringTooLong)
        #expect(Self.error("a = '" + String(repeating: "x", count: TOMLLimits.maximumStringBytes + 1) + "'")?.code == .stringTooLong)
        #expect(
            Self.error(
                "a = " + String(repeating: "[", count: TOMLLimits.maximumDepth - 1) + String(repeating: "]", count: TOMLLimits.maximumDepth - 1))
                == nil)
    }

    @Test("a document split at any byte and read again never crashes, and a prefix is accepted or refused with a position")
    func prefixes() {
        let text = Array(
            """
            store = "sqlite:/var/lib/reservoir/events.sqlite3"
            allow-domain = ["a.example", 'b.example',]
            t = { x = 1, y = [1.5e3, 0x1f] }
            [x.y]
            """.utf8)
        for end in 0...text.count {
            if case .failure(let error) = TOMLReader.read(Array(text[..<end])) { #expect(error.position.line >= 1 && error.position.column >= 1) }
        }
    }
}
