import Foundation

/// Python 3 as a peer: runs a script with lines on standard input and returns its output lines,
/// or nil (with the reason) when no suitable python3 is installed.
enum PythonPeer {
    /// Debian's python3 first: its `python3-icalendar` package is installed there.
    static let candidates = ["/usr/bin/python3", "/usr/local/bin/python3"]

    /// Whether one of the candidates imports `modules`.
    static func available(_ modules: [String]) -> Bool {
        candidates.contains { path in
            guard FileManager.default.isExecutableFile(atPath: path) else { return false }
            return (try? launch(path, ["-c", "import " + modules.joined(separator: ", ")], input: ""))?.status == 0
        }
    }

    static func run(_ script: String, input: String, needing modules: [String]) -> (lines: [String]?, reason: String) {
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) {
            let probe = "import " + modules.joined(separator: ", ")
            guard let probed = try? launch(path, ["-c", probe], input: ""), probed.status == 0 else { continue }
            guard let result = try? launch(path, ["-c", script], input: input), result.status == 0 else {
                return (nil, "\(path) failed on the script")
            }
            return (result.output.split(separator: "\n").map(String.init), "")
        }
        return (nil, "no python3 with \(modules.joined(separator: ", ")) (apt-get install python3 python3-icalendar)")
    }

    private static func launch(_ path: String, _ arguments: [String], input: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Write and read concurrently, so neither pipe fills up.
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
