import Foundation
import Glibc
import ServiceLog
import Testing

@Suite("The long-running programs' log lines and options")
struct ServiceLogTests {
    @Test("for the journal a line starts with its sd-daemon priority; for a person with the program's name and the level's word")
    func lineForm() {
        #expect(
            ServiceLog.line(.info, "listening on unix:/run/m.sock", program: "reservoir milter", journal: true)
                == "<6>listening on unix:/run/m.sock\n")
        #expect(ServiceLog.line(.error, "store: refused", program: "reservoir milter", journal: true) == "<3>store: refused\n")
        #expect(ServiceLog.line(.warning, "w", program: "reservoir watch", journal: true) == "<4>w\n")
        #expect(ServiceLog.line(.debug, "d", program: "reservoir watch", journal: true) == "<7>d\n")
        #expect(ServiceLog.line(.info, "listening", program: "reservoir milter", journal: false) == "reservoir milter: listening\n")
        #expect(ServiceLog.line(.error, "bad", program: "reservoir milter", journal: false) == "reservoir milter: error: bad\n")
    }

    @Test("a value's line feed or escape cannot start a second line; a long line is cut to one write")
    func oneLine() {
        #expect(ServiceLog.line(.info, "a\nb\r\u{1B}[2Jc", program: "p", journal: true) == "<6>a b  [2Jc\n")
        let long = ServiceLog.line(.info, String(repeating: "é", count: 5000), program: "p", journal: true)
        #expect(long.utf8.count <= ServiceLog.maximumLineBytes)
        #expect(long.hasSuffix("\u{2026}\n"))
        #expect(long.filter { $0 == "\n" }.count == 1)
    }

    @Test("a level passes its own priority and the more urgent ones only")
    func levels() {
        let log = ServiceLog(program: "p", level: .warning, destination: .standardError(journal: true))
        #expect(log.logs(.error) && log.logs(.warning))
        #expect(!log.logs(.info) && !log.logs(.debug))
        let debug = ServiceLog(program: "p", level: .debug, destination: .standardError(journal: true))
        #expect(LogLevel.allCases.allSatisfy(debug.logs))
        #expect(LogLevel(name: "info") == .info && LogLevel(name: "notice") == nil)
    }

    @Test("the journal's form only when standard error is the stream $JOURNAL_STREAM names")
    func journalStream() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
        let fd = open(path, O_CREAT | O_RDWR, 0o600)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(path)
        }
        var info = stat()
        try #require(fstat(fd, &info) == 0)
        #expect(ServiceLog.isJournalStream("\(info.st_dev):\(info.st_ino)", descriptor: fd))
        #expect(!ServiceLog.isJournalStream("\(info.st_dev):\(info.st_ino + 1)", descriptor: fd))
        #expect(!ServiceLog.isJournalStream(nil, descriptor: fd))
        #expect(!ServiceLog.isJournalStream("garbage", descriptor: fd))
        #expect(ServiceLog.destination(syslog: true) == .syslog)
        #expect(ServiceLog.destination(syslog: false, environment: { _ in nil }) == .standardError(journal: false))
    }

    @Test("the options are taken out of the arguments, the rest left in order")
    func options() throws {
        var arguments = ["--socket", "unix:/s", "--log-level", "debug", "--syslog", "--metrics=9464", "--account", "a@b.example"]
        let options = try ServiceOptions.take(from: &arguments).get()
        #expect(arguments == ["--socket", "unix:/s", "--account", "a@b.example"])
        #expect(options == ServiceOptions(level: .debug, syslog: true, metrics: MetricsAddress("127.0.0.1:9464")))
        var none = ["--store", "x"]
        #expect(try ServiceOptions.take(from: &none).get() == ServiceOptions())
        for bad in [["--log-level", "loud"], ["--log-level"], ["--metrics", "localhost:9464"], ["--syslog=yes"], ["--metrics", "70000"]] {
            var arguments = bad
            #expect(throws: UsageProblem.self) { try ServiceOptions.take(from: &arguments).get() }
        }
    }

    @Test("a port alone is on loopback; any other address only when written out")
    func metricsAddress() {
        #expect(MetricsAddress("9464")?.description == "127.0.0.1:9464")
        #expect(MetricsAddress("0.0.0.0:9464")?.host == "0.0.0.0")
        #expect(MetricsAddress("[::1]:9464")?.description == "[::1]:9464")
        #expect(MetricsAddress("[::1]:9464")?.host == "::1")
        for bad in ["", "0", "65536", "host.example:9464", "1.2.3:9464", "::1:9464", "[::1]", "127.0.0.1:", "127.0.0.1:x"] {
            #expect(MetricsAddress(bad) == nil, "\(bad)")
        }
    }
}
