import CDocumentScan
import Glibc
import ReservoirBase

// `reservoir-document KIND`: the bar codes of one document read from standard input, one line
// each on standard output — `FORMAT PAGE BASE64` (zxing-cpp's format name, the 1-based page,
// the code's raw bytes in base64, RFC 4648 §4) — then `end STATUS` (`ok`, `truncated`,
// `too-large`, `unreadable`). KIND is `pdf`, `png`, `jpeg` or `gif`.
//
// A program of its own, so that poppler, cairo and zxing-cpp are loaded by the process that
// meets a document and by no other (docs/ARCHITECTURE.md). It bounds itself before reading a
// byte — address space and CPU time — and its caller (``DocumentReader``) kills it at a wall-clock
// budget: a hostile PDF ends this process, never the hook.

/// The bounds of `reservoir-document` (docs/RELIABILITY.md, "Documents").
enum DocumentProgramLimits {
    /// Bytes read from standard input: an attachment of a message read whole (2 MB) fits.
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
        guard arguments.count == 2, let kind = kinds[arguments[1]] else {
            write(2, "usage: reservoir-document pdf|png|jpeg|gif < document\n")
            exit(64)
        }
        bound()
        guard let input = readInput() else {
            write(1, "end too-large\n")
            exit(0)
        }
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
        exit(0)
    }

    /// setrlimit(2) on this process before any document byte is parsed.
    static func bound() {
        var space = rlimit(rlim_cur: rlim_t(DocumentProgramLimits.addressSpaceBytes), rlim_max: rlim_t(DocumentProgramLimits.addressSpaceBytes))
        _ = setrlimit(Int32(RLIMIT_AS.rawValue), &space)
        var cpu = rlimit(rlim_cur: rlim_t(DocumentProgramLimits.cpuSeconds), rlim_max: rlim_t(DocumentProgramLimits.cpuSeconds + 1))
        _ = setrlimit(Int32(RLIMIT_CPU.rawValue), &cpu)
        var core = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &core)
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
