import CDocumentScan
import Glibc
import ReservoirBase

// `reservoir-document KIND`: the bar codes of one document read from standard input, one line
// each on standard output — `FORMAT PAGE BASE64` (zxing-cpp's format name, the 1-based page,
// the code's raw bytes in base64, RFC 4648 §4) — then `end STATUS` (`ok`, `truncated`,
// `too-large`, `unreadable`). KIND is `pdf`, `png`, `jpeg` or `gif`.
//
// `reservoir-document serve`: the same for one document after another on standard input and
// output (a socket, ``DocumentReaderPool``): each is `KIND LENGTH\n` and LENGTH bytes, each
// answer ends with its `end` line; the end of the input ends the program.
//
// A program of its own, so that poppler, cairo and zxing-cpp are loaded by the process that
// meets a document and by no other (docs/ARCHITECTURE.md). It bounds itself before reading a
// byte — address space, and CPU time for each document — and its caller kills it at a
// wall-clock budget: a hostile PDF ends this process, never the hook.

/// The bounds of `reservoir-document` (docs/RELIABILITY.md, "Documents").
enum DocumentProgramLimits {
    /// Bytes of one document: an attachment of a message read whole (2 MB) fits (the caller's
    /// `DocumentLimits.maxDocumentBytes` is the same).
    static let maxInputBytes = 4 << 20
    /// RLIMIT_AS: poppler, cairo and one page of pixels at the second resolution fit.
    static let addressSpaceBytes = 1 << 30
    /// RLIMIT_CPU in seconds: the kernel ends a document that keeps the CPU longer.
    static let cpuSeconds = 10
    static let maxPages = 8
    /// An A4 page at 300 dpi is 8.7 million pixels.
    static let maxPixels: Int64 = 40_000_000
    static let firstDPI: Int32 = 150
    static let secondDPI: Int32 = 300
    static let maxCodes: Int32 = 32
}

@main
struct ReservoirDocument {
    static func main() {
        let arguments = CommandLine.arguments
        let kinds: [String: reservoir_document_kind] = [
            "pdf": RESERVOIR_DOCUMENT_PDF, "png": RESERVOIR_DOCUMENT_PNG, "jpeg": RESERVOIR_DOCUMENT_JPEG, "gif": RESERVOIR_DOCUMENT_GIF,
        ]
        if arguments.count == 2, arguments[1] == "serve" {
            serve(kinds)
        }
        guard arguments.count == 2, let kind = kinds[arguments[1]] else {
            write(2, "usage: reservoir-document pdf|png|jpeg|gif < document, or reservoir-document serve\n")
            exit(64)
        }
        bound()
        boundCPU()
        guard let input = readInput() else {
            write(1, "end too-large\n")
            exit(0)
        }
        scan(input, kind)
        exit(0)
    }

    /// One document after another: `KIND LENGTH` and the bytes, each answered as the one-shot
    /// program answers; a malformed request ends the program (its caller starts another).
    static func serve(_ kinds: [String: reservoir_document_kind]) -> Never {
        bound()
        var input = InputBuffer()
        while let line = input.line(limit: 32) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count == 2, let kind = kinds[String(decoding: fields[0], as: UTF8.self)],
                let length = Int(String(decoding: fields[1], as: UTF8.self)), length >= 0
            else { exit(65) }
            guard length <= DocumentProgramLimits.maxInputBytes, let document = input.bytes(length) else {
                write(1, "end too-large\n")
                exit(0)
            }
            boundCPU()
            scan(document, kind)
        }
        exit(0)
    }

    /// The document's codes and its end line on standard output.
    static func scan(_ input: [UInt8], _ kind: reservoir_document_kind) {
        var limits = reservoir_document_limits(
            max_pages: Int32(DocumentProgramLimits.maxPages), max_pixels: DocumentProgramLimits.maxPixels,
            first_dpi: DocumentProgramLimits.firstDPI, second_dpi: DocumentProgramLimits.secondDPI, max_codes: DocumentProgramLimits.maxCodes)
        let status = input.withUnsafeBufferPointer { buffer in
            reservoir_document_scan(
                buffer.baseAddress, buffer.count, kind, &limits,
                { _, format, page, bytes, length in
                    guard let format, let bytes else { return }
                    let name = String(cString: format)
                    let encoded = Base64Text.encode(UnsafeBufferPointer(start: bytes, count: length))
                    ReservoirDocument.write(1, "\(name) \(page) \(encoded)\n")
                }, nil)
        }
        let word =
            switch status {
            case RESERVOIR_DOCUMENT_OK: "ok"
            case RESERVOIR_DOCUMENT_TRUNCATED: "truncated"
            case RESERVOIR_DOCUMENT_TOO_LARGE: "too-large"
            default: "unreadable"
            }
        write(1, "end \(word)\n")
    }

    /// setrlimit(2) on this process before any document byte is parsed: its address space, no
    /// core file.
    static func bound() {
        var space = rlimit(rlim_cur: rlim_t(DocumentProgramLimits.addressSpaceBytes), rlim_max: rlim_t(DocumentProgramLimits.addressSpaceBytes))
        _ = setrlimit(Int32(RLIMIT_AS.rawValue), &space)
        var core = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &core)
    }

    /// RLIMIT_CPU for the next document: the CPU time used so far and
    /// ``DocumentProgramLimits/cpuSeconds`` more, after which the kernel ends the program
    /// (SIGXCPU, whose default action it keeps). The hard limit is left as it is, so that the
    /// soft one can be set again for the document after.
    static func boundCPU() {
        var usage = rusage()
        _ = getrusage(RUSAGE_SELF.rawValue, &usage)
        let used = rlim_t(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1)
        var cpu = rlimit()
        _ = getrlimit(Int32(RLIMIT_CPU.rawValue), &cpu)
        let soft = used + rlim_t(DocumentProgramLimits.cpuSeconds)
        cpu.rlim_cur = min(soft, cpu.rlim_max)
        _ = setrlimit(Int32(RLIMIT_CPU.rawValue), &cpu)
    }

    /// Standard input whole, nil past ``DocumentProgramLimits/maxInputBytes``.
    static func readInput() -> [UInt8]? {
        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(0, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            input += chunk[0..<count]
            if input.count > DocumentProgramLimits.maxInputBytes { return nil }
        }
        return input
    }

    /// Standard input read as requests come: a line, then a document's bytes.
    struct InputBuffer {
        var buffered: [UInt8] = []
        var start = 0
        var ended = false

        /// More bytes from standard input; false at its end.
        mutating func fill() -> Bool {
            guard !ended else { return false }
            if start > 0 {
                buffered.removeFirst(start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(0, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    ended = true
                    return false
                }
                buffered += chunk[0..<count]
                return true
            }
        }

        /// The next line without its newline; nil at the end of the input or past `limit` bytes.
        mutating func line(limit: Int) -> [UInt8]? {
            while true {
                if let newline = buffered[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Array(buffered[start..<newline])
                    start = newline + 1
                    return line
                }
                guard buffered.count - start <= limit, fill() else { return nil }
            }
        }

        /// The next `count` bytes; nil when the input ends before them.
        mutating func bytes(_ count: Int) -> [UInt8]? {
            while buffered.count - start < count {
                guard fill() else { return nil }
            }
            let bytes = Array(buffered[start..<start + count])
            start += count
            return bytes
        }
    }

    static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBufferPointer { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
