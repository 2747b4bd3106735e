/// Streaming body canonicalization (RFC 6376 §3.4.3 simple, §3.4.4 relaxed).
///
/// Fed the raw body in chunks of any size, it appends canonical bytes to ``output``, which
/// the caller drains. Line breaks are CRLF or a bare LF (Maildir files store LF only; the
/// signer saw CRLF), both canonicalized to CRLF; a CR not followed by LF is content.
/// Only a count of pending empty lines is kept, never the body.
struct BodyCanonicalizer {
    let relaxed: Bool
    /// Canonical bytes produced since the caller last drained them. Written through raw
    /// pointers: `Array.append` per line of base64 cost more than finding the lines. Shared by
    /// copies of the canonicalizer, which is used in one place at a time.
    let produced = CanonicalOutput()

    /// A copy of the bytes not yet drained.
    var output: [UInt8] { Array(UnsafeBufferPointer(start: produced.base, count: produced.count)) }

    private var pendingCR = false
    /// Relaxed: white space seen and not yet written (§3.4.4: runs become one SP, and
    /// white space at the end of a line is dropped).
    private var pendingWhitespace = false
    private var lineHasContent = false
    /// Empty lines held back: §3.4.3/§3.4.4 drop empty lines at the end of the body.
    private var pendingEmptyLines = 0
    private var wroteAnything = false

    init(relaxed: Bool) {
        self.relaxed = relaxed
    }

    mutating func feed(_ bytes: some Sequence<UInt8>) {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { feed(buffer: $0) }
        if handled == nil {
            for byte in bytes { feed(byte) }
        }
    }

    /// The fast path: runs of bytes that canonicalization leaves alone (everything but CR, LF
    /// and, when relaxed, SP and HTAB) are copied in bulk; only the bytes between them go
    /// through the byte-by-byte rules.
    mutating func feed(buffer: UnsafeBufferPointer<UInt8>) {
        let count = buffer.count
        var i = 0
        while i < count {
            if !pendingCR, !lineHasContent, !pendingWhitespace, pendingEmptyLines == 0 {
                i = plainLines(buffer, from: i)
                guard i < count else { break }
            }
            if pendingCR {
                feed(buffer[i])
                i += 1
                continue
            }
            let j = Self.firstSpecial(buffer, from: i, relaxed: relaxed)
            if j > i {
                contentRun(UnsafeBufferPointer(rebasing: buffer[i..<j]))
                i = j
                // Most runs end a line: take its LF at once.
                if i < count, buffer[i] == 0x0A {
                    endLine()
                    i += 1
                }
            } else if buffer[i] == 0x0A {
                // The end of most lines, taken here rather than through feed(_:).
                endLine()
                i += 1
            } else {
                feed(buffer[i])
                i += 1
            }
        }
    }

    /// At the start of a line with nothing held back: takes whole lines of ordinary bytes (a
    /// lone SP between words included, relaxed), each ending in LF or CRLF, writing each with
    /// its CRLF straight into the output reserved once for all of them; the lines of base64
    /// and of most text. Every line here costs a scan and a copy, where the general path paid
    /// for its state at each run and line end (250 instructions a base64 line). Stops at the
    /// first line that needs the rules (empty, white space at its ends or in runs, a bare CR,
    /// other control bytes in simple), taking the ordinary bytes before the obstacle as
    /// content; returns where the rules take over.
    private mutating func plainLines(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = buffer.baseAddress else { return start }
        let count = buffer.count
        // A line of n ordinary bytes and a line break of at least one byte becomes n + 2 bytes:
        // at most 3/2 of what it was.
        produced.reserve(produced.count + (count - start) / 2 * 3 + 4)
        var p = start
        var q = start  // where the line at p stops being ordinary
        var lines = 0
        while p < count {
            let next: Int
            (q, next) = scanLine(base, count: count, from: p)
            guard q > p, next > 0 else { break }
            produced.appendLineReserved(base + p, count: q - p)
            lines += 1
            p = next
            q = p
        }
        if lines > 0 { wroteAnything = true }
        // The line that stopped the loop: its ordinary bytes are content already.
        if q > p {
            contentRun(UnsafeBufferPointer(start: base + p, count: q - p))
            return q
        }
        return p
    }

    /// Where the ordinary content of the line at `start` stops, and the index after its line
    /// break when it stops at one (LF or CRLF); `next` is -1 when the stop is for the rules
    /// (white space but a lone SP between ordinary bytes, relaxed; a CR or the piece's end).
    /// The line break of a base64 line is found without a branch per byte (`firstBelow`).
    @inline(__always)
    private func scanLine(_ base: UnsafePointer<UInt8>, count: Int, from start: Int) -> (stop: Int, next: Int) {
        let lowest: UInt8 = relaxed ? 0x21 : 0x0E
        var j = start
        while true {
            let q = Self.firstBelow(base, count: count, from: j, lowest: lowest)
            guard q < count else { return (count, -1) }
            let byte = base[q]
            if byte == 0x0A { return (q, q &+ 1) }
            guard q &+ 1 < count else { return (q, -1) }  // what follows is in the next piece
            let following = base[q &+ 1]
            if byte == 0x0D {
                if following == 0x0A { return (q, q &+ 2) }
                // A bare CR is content (§3.4.3, §3.4.4 change only line breaks and WSP).
            } else if relaxed, byte == 0x20 || byte == 0x09 {
                // One SP between two ordinary bytes stays as it is; the rest is for the rules.
                guard byte == 0x20, q > start, following != 0x20, following != 0x09, following != 0x0D, following != 0x0A else {
                    return (q, -1)
                }
            }
            // Other control bytes are content.
            j = q &+ 1
        }
    }

    /// The index of the first byte at or after `start` below `lowest` (CR, LF, SP and HTAB are
    /// all below 0x21, CR and LF below 0x0E), or `count`. Sixteen bytes at a time are compared
    /// with the bound as a vector; then the first byte below it is found exactly, eight bytes at
    /// a time: per byte, `(byte | 0x80) - bound` borrows from nothing, so its high bit, or the
    /// byte's own, says the byte is at least the bound.
    @inline(__always)
    static func firstBelow(_ base: UnsafePointer<UInt8>, count: Int, from start: Int, lowest: UInt8) -> Int {
        let limit = SIMD16<UInt8>(repeating: lowest)
        let bound = 0x0101_0101_0101_0101 &* UInt64(lowest)
        let high: UInt64 = 0x8080_8080_8080_8080
        var j = start
        while j &+ 16 <= count {
            if any(UnsafeRawPointer(base + j).loadUnaligned(as: SIMD16<UInt8>.self) .< limit) { break }
            j &+= 16
        }
        while j &+ 8 <= count {
            let word = UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self)
            let below = ~((((word | high) &- bound) | word) & high) & high
            if below != 0 { return j &+ (below.trailingZeroBitCount &>> 3) }
            j &+= 8
        }
        while j < count, base[j] >= lowest { j &+= 1 }
        return j
    }

    /// The index of the first byte at or after `start` that canonicalization must look at
    /// (CR, LF and, when relaxed, SP and HTAB), or the end: the bytes below the bound
    /// (`firstBelow`) are looked at one by one, other control bytes being content.
    /// The run must not start at white space: a run begins where a byte was not special, and a
    /// lone SP inside it is kept only when an ordinary byte follows.
    @inline(__always)
    static func firstSpecial(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, relaxed: Bool) -> Int {
        guard let base = buffer.baseAddress else { return start }
        let count = buffer.count
        let lowest: UInt8 = relaxed ? 0x21 : 0x0E
        var j = start
        while true {
            j = firstBelow(base, count: count, from: j, lowest: lowest)
            guard j < count else { return count }
            let b = base[j]
            if b == 0x0D || b == 0x0A || b == 0x09 && relaxed { return j }
            if b == 0x20 && relaxed {
                // One SP between two ordinary bytes stays as it is (§3.4.4 only shortens
                // runs and drops them at line ends): part of the run, like the words around it.
                guard j > start, j + 1 < count else { return j }
                let next = base[j + 1]
                if next == 0x20 || next == 0x09 || next == 0x0D || next == 0x0A { return j }
            }
            j += 1
        }
    }

    mutating func feed(_ byte: UInt8) {
        if pendingCR {
            pendingCR = false
            if byte == 0x0A {
                endLine()
                return
            }
            content(0x0D)
        }
        switch byte {
        case 0x0D: pendingCR = true
        case 0x0A: endLine()
        case 0x20 where relaxed, 0x09 where relaxed: pendingWhitespace = true
        default: content(byte)
        }
    }

    /// Ends the body: completes a last line without a line break and applies the empty-body
    /// rules (simple: "CRLF"; relaxed: nothing, RFC 6376 erratum 1384 / §3.4.4).
    mutating func finish() {
        if pendingCR {
            pendingCR = false
            content(0x0D)
        }
        if lineHasContent {
            // §3.4.3/§3.4.4: a body not ending in CRLF gets one.
            produced.appendCRLF()
            lineHasContent = false
        }
        pendingWhitespace = false
        if !wroteAnything, !relaxed {
            produced.appendCRLF()
            wroteAnything = true
        }
    }

    private mutating func content(_ byte: UInt8) {
        beginContent()
        produced.append(byte)
    }

    private mutating func contentRun(_ run: UnsafeBufferPointer<UInt8>) {
        beginContent()
        produced.append(run)
    }

    /// Writes what was held back before content: empty lines (they were not at the end after
    /// all) and one SP for a run of white space (relaxed).
    private mutating func beginContent() {
        while pendingEmptyLines > 0 {
            produced.appendCRLF()
            pendingEmptyLines -= 1
        }
        if pendingWhitespace {
            if relaxed { produced.append(0x20) }
            pendingWhitespace = false
        }
        lineHasContent = true
        wroteAnything = true
    }

    private mutating func endLine() {
        pendingWhitespace = false
        if lineHasContent {
            produced.appendCRLF()
            lineHasContent = false
        } else {
            pendingEmptyLines += 1
        }
    }
}

/// A growable byte buffer written through raw pointers, for `BodyCanonicalizer`.
final class CanonicalOutput {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { grow(1) }
        base[count] = byte
        count += 1
    }

    /// `bytes` and CRLF, in room the caller reserved.
    @inline(__always)
    func appendLineReserved(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        assert(count + length + 2 <= capacity)
        (base + count).update(from: bytes, count: length)
        count += length
        base[count] = 0x0D
        base[count + 1] = 0x0A
        count += 2
    }

    @inline(__always)
    func appendCRLF() {
        if count + 2 > capacity { grow(2) }
        base[count] = 0x0D
        base[count + 1] = 0x0A
        count += 2
    }

    @inline(__always)
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if count + bytes.count > capacity { grow(bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Forgets the bytes, keeping the storage.
    func removeAll() { count = 0 }

    func reserve(_ total: Int) {
        if total > capacity { grow(total - count) }
    }

    private func grow(_ extra: Int) {
        let larger = max(capacity * 2, count + extra)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }
}
