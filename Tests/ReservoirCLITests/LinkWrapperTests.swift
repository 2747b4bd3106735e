import Foundation
import PostgresTestSupport
import Testing

/// `scripts/build/link-c-libs-static`, the hook build's linker wrapper, in front of a linker
/// that only reports what it was given: clang passes a long link line (reservoir-serve's) in a
/// response file, whose `-l` options must reach the linker as archives too, or the program
/// loads the shared libraries (and, through libxml2.so, ICU's).
@Suite("scripts/build/link-c-libs-static")
struct LinkWrapperTests {
    static let wrapper = ReservoirBinary.packageRoot.appendingPathComponent("scripts/build/link-c-libs-static").path

    /// A linker that prints each argument, and the content of each response file while it exists.
    static func reportingLinker(in directory: String) throws -> String {
        let linker = directory + "/ld"
        try "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in @*) echo \"file: $(cat \"${a#@}\")\" ;; *) echo \"arg: $a\" ;; esac; done\n"
            .write(toFile: linker, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: linker)
        return linker
    }

    @Test(
        "the -l options of a response file are mapped to the archives as on the command line, and the mapped copy is removed",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/sh"), "needs /bin/sh"))
    func responseFile() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let linker = try Self.reportingLinker(in: tmp.path)
        let response = tmp.path + "/link.rsp"
        try #""-o" "out" "main.o" "-lcrypto" "-lsqlite3" "-lxml2" "-lgcc_s" "-lcryptography" "-rpath=$ORIGIN" "-lc""#
            .write(toFile: response, atomically: true, encoding: .utf8)
        let scratch = tmp.path + "/tmp"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)

        let run = try ChildProcess.capture([
            "/usr/bin/env", "RESERVOIR_LD=\(linker)", "TMPDIR=\(scratch)", "/bin/sh", Self.wrapper, "-lcrypto", "@\(response)",
        ])
        let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")
        // The command line, as before.
        #expect(lines.contains("arg: -l:libcrypto.a") && !lines.contains("arg: -lcrypto"), "\(lines)")
        // The response file: the same mapping.
        let file = try #require(lines.first { $0.hasPrefix("file: ") }, "\(lines)")
        for archive in ["\"-l:libcrypto.a\"", "\"-l:libsqlite3.a\"", "\"-l:libxml2.a\"", "\"-l:libgcc_eh.a\""] {
            #expect(file.contains(archive), "\(archive) in \(file)")
        }
        for shared in ["\"-lcrypto\"", "\"-lsqlite3\"", "\"-lxml2\"", "\"-lgcc_s\"", "-rpath"] {
            #expect(!file.contains(shared), "\(shared) in \(file)")
        }
        // The control: only whole arguments are mapped, and the others pass unchanged.
        #expect(file.contains("\"-lcryptography\"") && file.contains("\"main.o\"") && file.contains("\"-lc\""), "\(file)")
        // The caller's response file is untouched; the mapped copy is gone.
        #expect(try String(contentsOfFile: response, encoding: .utf8).contains("\"-lcrypto\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch) == [])
    }

    @Test(
        "reservoir-document keeps the shared C++ runtime its libraries use, on the command line and in a response file; other programs get the archives",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/sh"), "needs /bin/sh"))
    func documentReaderKeepsSharedCxx() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let linker = try Self.reportingLinker(in: tmp.path)
        func link(_ arguments: [String]) throws -> [String] {
            let run = try ChildProcess.capture(["/usr/bin/env", "RESERVOIR_LD=\(linker)", "/bin/sh", Self.wrapper] + arguments)
            #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")
            return String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        let document = try link(["-o", "/b/release/reservoir-document", "main.o", "-lstdc++", "-lgcc_s"])
        #expect(document.contains("arg: -lstdc++") && document.contains("arg: -lgcc_s"), "\(document)")
        let response = tmp.path + "/link.rsp"
        try #""-o" "/b/release/reservoir-document" "main.o" "-lstdc++" "-lgcc_s""#.write(toFile: response, atomically: true, encoding: .utf8)
        let file = try #require(try link(["@\(response)"]).first { $0.hasPrefix("file: ") })
        #expect(file.contains("\"-lstdc++\"") && file.contains("\"-lgcc_s\""), "\(file)")
        // The control: the filter, whose name only ends like it, gets the archives.
        let filter = try link(["-o", "/b/release/reservoir-filter", "main.o", "-lstdc++", "-lgcc_s"])
        #expect(filter.contains("arg: -l:libstdc++.a") && filter.contains("arg: -l:libgcc_eh.a"), "\(filter)")
        let other = try link(["-o", "/b/release/not-reservoir-document.o", "-lstdc++"])
        #expect(other.contains("arg: -l:libstdc++.a"), "\(other)")
    }
}
