public import Glibc

/// Starts a program as a child the way a mail system or a shell would: posix_spawn(3) with an
/// empty signal mask and every signal at its default disposition, whatever the calling thread
/// blocks or ignores (a server's worker threads block signals; a child inheriting a blocked
/// SIGTERM could not be stopped), and with no descriptor of the parent's above standard error
/// (glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`): a child that outlives a document
/// or a request (the document readers) holds none of its parent's files, sockets or
/// another child's pipe open.
public enum ChildSpawn {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    /// Looked up at run time: Swift's Glibc module does not declare it.
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }

    /// `arguments[0]` (a path) with `arguments`, its descriptors set up by `actions`; the child's
    /// process id, or nil when it could not be started.
    public static func spawn(_ arguments: [String], actions: inout posix_spawn_file_actions_t) -> pid_t? {
        guard let program = arguments.first else { return nil }
        // After the caller's actions, which only place descriptors at 0, 1 and 2.
        _ = closeFrom?(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        var all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        return posix_spawn(&pid, program, &actions, &attributes, argv, environ) == 0 ? pid : nil
    }

    /// The child's exit status, waiting for it: 128 + the signal's number when a signal ended it.
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS are macros: exited normally when the low 7 bits are 0.
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
