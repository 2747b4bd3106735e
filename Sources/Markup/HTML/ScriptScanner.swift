import Glibc
import JSON
import ReservoirBase

/// Finds the JSON-LD scripts of an HTML part without building a tree, for the common part that
/// has scripts and no Microdata: building libxml2's tree was an eighth of a scan's time.
///
/// It follows the HTML tokenizer (WHATWG HTML §13.2.5) only as far as telling script elements
/// apart from text, comments, attribute values and the other raw-text elements, and gives up
/// (`nil`) wherever HTML parsers are known to disagree or it does not follow the input: the
/// full parse then reads the part. So it never answers differently from the tree; the
/// `fuzz-scripts` target and `ScriptScannerTests` compare the two.
enum ScriptScanner {
    /// The byte ranges of the text of every `<script>` whose type is JSON-LD, in document
    /// order; nil when the part needs the full parser.
    static func jsonLDScripts(_ html: UnsafeBufferPointer<UInt8>) -> [Range<Int>]? {
        var scanner = Scanner(html)
        return scanner.run()
    }

    /// Only parts without Microdata: these attributes need the tree.
    static func needsTree(_ html: UnsafeBufferPointer<UInt8>) -> Bool {
        MarkupSignature.contains(html, "itemscope", or: "itemprop")
    }

    private struct Scanner {
        let html: UnsafeBufferPointer<UInt8>
        let count: Int
        var scripts: [Range<Int>] = []

        init(_ html: UnsafeBufferPointer<UInt8>) {
            self.html = html
            count = html.count
        }

        /// Elements whose content is raw text, foreign content or a template: not followed.
        static let unfollowed: [StaticString] = ["xmp", "iframe", "noembed", "noframes", "noscript", "plaintext", "template", "svg", "math"]
        /// Every element read differently from an ordinary one.
        static let special: [StaticString] = unfollowed + ["script", "style", "title", "textarea"]

        mutating func run() -> [Range<Int>]? {
            guard Self.plainCharacters(html) else { return nil }
            var i = 0
            while let lt = find(UInt8(ascii: "<"), from: i) {
                guard lt + 1 < count else { return scripts }
                let next = html[lt + 1]
                switch next {
                case UInt8(ascii: "!"):
                    guard let end = markupDeclaration(lt) else { return nil }
                    i = end
                case UInt8(ascii: "?"):
                    // §13.2.5.6: a bogus comment up to the next ">" (libxml2: a processing
                    // instruction, also up to ">"). A "<" inside is read differently.
                    guard let gt = find(UInt8(ascii: ">"), from: lt + 2), !has(UInt8(ascii: "<"), lt + 2..<gt) else { return nil }
                    i = gt + 1
                case UInt8(ascii: "/"):
                    // An end tag; "</" before anything but a letter is a bogus comment in HTML
                    // and text to libxml2.
                    guard lt + 2 < count, ASCII.isLetter(html[lt + 2]),
                        let gt = find(UInt8(ascii: ">"), from: lt + 2),
                        !has(UInt8(ascii: "<"), lt + 2..<gt), !has(UInt8(ascii: "\""), lt + 2..<gt),
                        !has(UInt8(ascii: "'"), lt + 2..<gt)
                    else { return nil }
                    i = gt + 1
                default:
                    if ASCII.isLetter(next) {
                        guard let end = startTag(lt) else { return nil }
                        i = end
                    } else if next >= 0x80 || next == UInt8(ascii: "_") || next == UInt8(ascii: ":") || next == UInt8(ascii: ".") {
                        // Text in HTML, a tag name to libxml2.
                        return nil
                    } else {
                        i = lt + 1  // "<" as text
                    }
                }
            }
            return scripts
        }

        /// `<!…` at `lt`: a comment, a DOCTYPE or a bogus comment; the index after it.
        private func markupDeclaration(_ lt: Int) -> Int? {
            if matches("<!--", at: lt) {
                // §13.2.5.43–44: "<!-->" and "<!--->" are whole comments; libxml2 reads on to
                // the next "-->".
                if matches("<!-->", at: lt) || matches("<!--->", at: lt) { return nil }
                guard let close = find("-->", from: lt + 4) else { return nil }
                // §13.2.5.52: "--!>" also ends a comment; libxml2 does not stop there.
                if find("--!>", from: lt + 4, before: close + 3) != nil { return nil }
                return close + 3
            }
            if matches("<!doctype", at: lt, ignoringCase: true) {
                // Quoted identifiers may hold ">" for libxml2, not for HTML (§13.2.5.60).
                guard let gt = find(UInt8(ascii: ">"), from: lt + 9) else { return nil }
                let region = lt + 9..<gt
                if has(UInt8(ascii: "<"), region) || occurrences(UInt8(ascii: "\""), region) % 2 != 0
                    || occurrences(UInt8(ascii: "'"), region) % 2 != 0
                {
                    return nil
                }
                return gt + 1
            }
            // "<![if !mso]>", "<![endif]>": bogus comments to the next ">" (§13.2.5.42).
            if matches("<![CDATA[", at: lt) { return nil }
            guard let gt = find(UInt8(ascii: ">"), from: lt + 2), !has(UInt8(ascii: "<"), lt + 2..<gt) else { return nil }
            return gt + 1
        }

        /// A start tag at `lt` (a letter follows): its attributes, and the raw text of the
        /// elements whose content is not markup. The index after it all.
        private mutating func startTag(_ lt: Int) -> Int? {
            var k = lt + 1
            while k < count, Self.isNameCharacter(html[k]) { k += 1 }
            guard k < count, Self.isSpace(html[k]) || html[k] == UInt8(ascii: ">") || html[k] == UInt8(ascii: "/") else { return nil }
            let name = lt + 1..<k
            // libxml2 keeps a prefixed name ("o:p" in Office mail) whole when choosing how to
            // read the content, then names the element by its local part: a "schema:script" is
            // read as markup but becomes a script.
            if let colon = lastIndex(of: UInt8(ascii: ":"), in: name) {
                let local = colon + 1..<name.upperBound
                for special in Self.special where equalsIgnoringCase(local, special) { return nil }
            }
            let isScript = equalsIgnoringCase(name, "script")
            var type: Range<Int>?
            var sawType = false
            var selfClosing = false
            attributes: while true {
                while k < count, Self.isSpace(html[k]) { k += 1 }
                guard k < count else { return nil }
                switch html[k] {
                case UInt8(ascii: ">"):
                    k += 1
                    break attributes
                case UInt8(ascii: "/"):
                    guard k + 1 < count, html[k + 1] == UInt8(ascii: ">") else { return nil }
                    selfClosing = true
                    k += 2
                    break attributes
                default:
                    break
                }
                // libxml2 reads names of letters, digits and "-_:."; HTML reads anything else too.
                guard ASCII.isLetter(html[k]) else { return nil }
                let nameStart = k
                while k < count, Self.isNameCharacter(html[k]) { k += 1 }
                let attribute = nameStart..<k
                // A prefixed attribute of a script might be its type once the prefix is dropped.
                if isScript, lastIndex(of: UInt8(ascii: ":"), in: attribute) != nil { return nil }
                while k < count, Self.isSpace(html[k]) { k += 1 }
                guard k < count else { return nil }
                var value: Range<Int>?
                if html[k] == UInt8(ascii: "=") {
                    k += 1
                    while k < count, Self.isSpace(html[k]) { k += 1 }
                    guard k < count else { return nil }
                    let quote = html[k]
                    if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                        guard let close = find(quote, from: k + 1) else { return nil }
                        value = k + 1..<close
                        k = close + 1
                    } else {
                        let start = k
                        while k < count, !Self.isSpace(html[k]), html[k] != UInt8(ascii: ">") {
                            // §13.2.5.38: these are errors in an unquoted value; parsers differ.
                            switch html[k] {
                            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: "="), UInt8(ascii: "`"): return nil
                            default: k += 1
                            }
                        }
                        guard k > start else { return nil }
                        value = start..<k
                    }
                } else if !(Self.isSpace(html[k - 1]) || html[k] == UInt8(ascii: ">") || html[k] == UInt8(ascii: "/")) {
                    return nil
                }
                // The first of repeated attributes counts (§13.2.5.33, and libxml2 too).
                if isScript, !sawType, equalsIgnoringCase(attribute, "type") {
                    sawType = true
                    type = value
                }
            }
            let isStyle = equalsIgnoringCase(name, "style")
            // libxml2 reads a tag at the very start of script or style content as markup (an end
            // tag, or a start tag that closes the element), where HTML reads text.
            if isScript || isStyle, k < count, html[k] == UInt8(ascii: "<") { return nil }
            if isScript {
                // A self-closed script is empty to libxml2; HTML ignores the "/".
                guard !selfClosing, let (text, end) = rawText(from: k, closing: "</script") else { return nil }
                // §13.2.5.4 script data: "<!--" inside starts the escaped states, where a
                // "</script>" may not end the element; libxml2 has no such states.
                if find("<!--", from: text.lowerBound, before: text.upperBound) != nil { return nil }
                if let type {
                    // Character references in the type would be decoded by the parser.
                    if has(UInt8(ascii: "&"), type) { return nil }
                    guard let typeText = String(validating: html[type], as: UTF8.self) else { return nil }
                    if JSONLDScript.isJSONLDType(typeText) {
                        // The tree's text stops growing past the limit; leave the rare giant to it.
                        guard text.count <= JSONLimits.maximumBytes else { return nil }
                        scripts.append(text)
                    }
                }
                return end
            }
            if isStyle {
                // RAWTEXT in HTML (§13.2.5.3), script-like raw content to libxml2.
                return rawText(from: k, closing: "</style")?.end
            }
            let rcdataEnd: StaticString? =
                equalsIgnoringCase(name, "title")
                ? "</title"
                : equalsIgnoringCase(name, "textarea") ? "</textarea" : nil
            if let closing = rcdataEnd {
                // RCDATA in HTML, ordinary content to libxml2: the same only without tags inside.
                guard let (text, end) = rawText(from: k, closing: closing), !has(UInt8(ascii: "<"), text) else { return nil }
                return end
            }
            for special in Self.unfollowed where equalsIgnoringCase(name, special) {
                // Raw text, foreign content or templates: parsers differ.
                return nil
            }
            return k
        }

        /// The text from `start` to the end tag `closing` (lowercase, "</name"), which must be
        /// followed by optional white space and ">"; and the index after that end tag.
        private func rawText(from start: Int, closing: StaticString) -> (text: Range<Int>, end: Int)? {
            guard let tag = find(closing, from: start, ignoringCase: true) else { return nil }
            let nameEnd = tag + closing.utf8CodeUnitCount
            // "</scriptx>" ends a script for libxml2 (a prefix match), not for HTML.
            guard nameEnd < count, Self.isSpace(html[nameEnd]) || html[nameEnd] == UInt8(ascii: ">") else { return nil }
            var k = nameEnd
            while k < count, Self.isSpace(html[k]) { k += 1 }
            guard k < count, html[k] == UInt8(ascii: ">") else { return nil }
            return (start..<tag, k + 1)
        }

        // MARK: Bytes

        /// No byte that either parser reads differently: NUL, the C0 controls but tab, LF and
        /// CR (dropped from script text by libxml2, kept by HTML), form feed (white space in
        /// HTML only), and the noncharacters U+FFFE and U+FFFF.
        private static func plainCharacters(_ html: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let base = html.baseAddress else { return true }
            var i = 0
            let count = html.count
            let space = SIMD16<UInt8>(repeating: 0x20)
            let lead = SIMD16<UInt8>(repeating: 0xEF)
            while i < count {
                // Sixteen bytes with no control character and no 0xEF lead byte pass at once.
                if i + 16 <= count {
                    let vector = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
                    if !any(vector .< space .| vector .== lead) {
                        i += 16
                        continue
                    }
                }
                let end = min(i + 16, count)
                while i < end {
                    let b = html[i]
                    if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D { return false }
                    if b == 0xEF, i + 2 < count, html[i + 1] == 0xBF, html[i + 2] >= 0xBE { return false }
                    i += 1
                }
            }
            return true
        }

        private static func isNameCharacter(_ b: UInt8) -> Bool {
            ASCII.isLetter(b) || ASCII.isDigit(b)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b == UInt8(ascii: ".")
        }

        /// White space to both parsers (form feed is refused up front).
        private static func isSpace(_ b: UInt8) -> Bool {
            b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
        }

        private func find(_ byte: UInt8, from start: Int) -> Int? {
            guard start < count, let base = html.baseAddress else { return nil }
            guard let hit = memchr(base + start, Int32(byte), count - start) else { return nil }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }

        private func has(_ byte: UInt8, _ range: Range<Int>) -> Bool {
            guard !range.isEmpty, let base = html.baseAddress else { return false }
            return memchr(base + range.lowerBound, Int32(byte), range.count) != nil
        }

        private func lastIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
            var i = range.upperBound
            while i > range.lowerBound {
                i -= 1
                if html[i] == byte { return i }
            }
            return nil
        }

        private func occurrences(_ byte: UInt8, _ range: Range<Int>) -> Int {
            var n = 0
            for i in range where html[i] == byte { n += 1 }
            return n
        }

        /// Whether `literal` (lowercase when `ignoringCase`) is at `index`.
        private func matches(_ literal: StaticString, at index: Int, ignoringCase: Bool = false) -> Bool {
            let n = literal.utf8CodeUnitCount
            guard index + n <= count else { return false }
            for j in 0..<n {
                let b = ignoringCase ? ASCII.lowercased(html[index + j]) : html[index + j]
                if b != literal.utf8Start[j] { return false }
            }
            return true
        }

        private func equalsIgnoringCase(_ range: Range<Int>, _ literal: StaticString) -> Bool {
            range.count == literal.utf8CodeUnitCount && matches(literal, at: range.lowerBound, ignoringCase: true)
        }

        /// The first `literal` at or after `start` that begins before `limit`. Every literal
        /// searched for starts with a byte that has no case ("<" or "-"), found with memchr.
        private func find(_ literal: StaticString, from start: Int, before limit: Int? = nil, ignoringCase: Bool = false) -> Int? {
            let first = literal.utf8Start[0]
            var i = start
            let end = limit ?? count
            while i < end, let hit = find(first, from: i), hit < end {
                if matches(literal, at: hit, ignoringCase: ignoringCase) { return hit }
                i = hit + 1
            }
            return nil
        }
    }
}
