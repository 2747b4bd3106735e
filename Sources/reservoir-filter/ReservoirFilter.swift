import CommandCore
import Glibc

// `reservoir filter` as a program of its own, for mail systems that start one process per
// delivered message (procmail, Sieve's vnd.dovecot.filter, Postfix pipe): the same hook, the
// same options and exit statuses, without the argument parser and the Foundation libraries it
// brings, which every start would otherwise load and relocate (docs/PERFORMANCE.md).
//
// Arguments it does not take in their plain form (help, an unknown option, a malformed value)
// go to `reservoir filter` in the same directory, which explains them; the message on stdin is
// still unread then.
//
// A `@main` type rather than top-level code: top-level code runs on the main actor, which
// would link the concurrency runtime and libdispatch into the program for nothing.

@main
enum ReservoirFilter {
    nonisolated static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if let hook = FilterHook(arguments: arguments, configuration: .process) {
            do {
                try hook.run()
                exit(0)
            } catch {
                exit(error.code)
            }
        }
        guard let reservoir = reservoirBeside() else {
            Output.error("filter: cannot read the arguments \(arguments.joined(separator: " ")); `reservoir filter --help` lists them")
            exit(64)
        }
        let argv = ([reservoir, "filter"] + arguments).map { strdup($0) } + [nil]
        execv(reservoir, argv)
        Output.error("filter: cannot run \(reservoir): \(String(cString: strerror(errno)))")
        exit(64)
    }

    /// `reservoir` beside this executable (symbolic links resolved), or nil.
    static func reservoirBeside() -> String? {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &path, path.count - 1)
        guard n > 0 else { return nil }
        let full = String(decoding: path[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = full.lastIndex(of: "/") else { return nil }
        let candidate = String(full[...slash]) + "reservoir"
        return access(candidate, X_OK) == 0 ? candidate : nil
    }
}
