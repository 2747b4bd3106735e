// The floor for any hook written in Swift: a program that only copies standard input to
// standard output, linked like reservoir-filter (static Swift runtime). The hook section of
// scripts/bench times it beside `cat` and reservoir-filter.
import Glibc

var buffer = [UInt8](repeating: 0, count: 1 << 16)
while true {
    let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
    if count < 0, errno == EINTR { continue }
    guard count > 0 else { break }
    var offset = 0
    while offset < count {
        let written = buffer.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + offset, count - offset) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { exit(1) }
        offset += written
    }
}
