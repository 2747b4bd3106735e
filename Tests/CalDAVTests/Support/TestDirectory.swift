import Glibc

/// A fresh directory under $TMPDIR, removed with everything in it by `remove()`.
struct TestDirectory {
    let path: String

    init() throws {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/reservoir-caldav-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        path = String(cString: made)
    }

    func remove() {
        _ = try? ServerProcess.run(["/bin/rm", "-rf", path])
    }

    /// Writes `text` to `name` inside the directory with the given mode; returns the path.
    @discardableResult
    func write(_ name: String, _ text: String, mode: mode_t = 0o600) throws -> String {
        let file = path + "/" + name
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, mode)
        guard descriptor >= 0 else { throw TestFailure("cannot write \(file)") }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            throw TestFailure("short write to \(file)")
        }
        // The umask may have taken bits away; the tests need the mode exactly.
        fchmod(descriptor, mode)
        return file
    }

    func makeDirectory(_ name: String) throws {
        guard mkdir(path + "/" + name, 0o700) == 0 else { throw TestFailure("mkdir \(name)") }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
