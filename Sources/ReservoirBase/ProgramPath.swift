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
}
