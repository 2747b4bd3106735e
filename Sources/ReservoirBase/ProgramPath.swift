import Glibc

/// Where the programs installed together are found: beside the running executable, by
/// `/proc/self/exe`, so a symbolic link to one elsewhere still finds the real one's siblings.
public enum ProgramPath {
    /// The program `name` in the directory of this executable.
    public static func beside(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        let path = count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        return directory + "/" + name
    }

    /// The installed reference pages and examples: `PREFIX/share/doc/reservoir` for a program
    /// installed as `PREFIX/bin/NAME` (scripts/install; the package's prefix is `/usr`), else
    /// the package's place. `$RESERVOIR_DOCUMENTATION` names it instead: scripts/install sets it
    /// while it writes the manual pages from a program staged under `--destdir`.
    public static var documentation: String {
        if let named = getenv("RESERVOIR_DOCUMENTATION").map({ String(cString: $0) }), named.hasPrefix("/") { return named }
        let bin = beside("")
        guard bin.hasSuffix("/bin/"), bin.count > "/bin/".count else { return "/usr/share/doc/reservoir" }
        return String(bin.dropLast("/bin/".count)) + "/share/doc/reservoir"
    }
}
