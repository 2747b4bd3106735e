/// Streaming body canonicalization (RFC 6376 §3.4.3 simple, §3.4.4 relaxed).
///
/// Fed the raw body in chunks of any size, it appends canonical bytes to ``output``, which
/// the caller drains. Line breaks are CRLF or a bare LF (Maildir files store LF only; the
/// signer saw CRLF), both canonicalized to CRLF; a CR not followed by LF is content.
/// Only a count of pending empty lines is kept, never the body.
struct BodyCanonicalizer {
    let relaxed: Bool
    /// Canonical bytes produced since the caller last drained them.
    var output: [UInt8] = []

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
        for byte in bytes { feed(byte) }
    }

    mutating func feed(_ byte: UInt8) {
        if pendingCR {
            pendingCR = false
            if byte == 0x0A { endLine(); return }
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
            output += [0x0D, 0x0A]
            lineHasContent = false
        }
        pendingWhitespace = false
        if !wroteAnything, !relaxed {
            output += [0x0D, 0x0A]
            wroteAnything = true
        }
    }

    private mutating func content(_ byte: UInt8) {
        while pendingEmptyLines > 0 {
            output += [0x0D, 0x0A]
            pendingEmptyLines -= 1
        }
        if pendingWhitespace {
            if relaxed { output.append(0x20) }
            pendingWhitespace = false
        }
        output.append(byte)
        lineHasContent = true
        wroteAnything = true
    }

    private mutating func endLine() {
        pendingWhitespace = false
        if lineHasContent {
            output += [0x0D, 0x0A]
            lineHasContent = false
        } else {
            pendingEmptyLines += 1
        }
    }
}
