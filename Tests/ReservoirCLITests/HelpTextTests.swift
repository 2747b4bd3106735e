import Foundation
import Testing

/// Help a person copies commands from: every example line stays whole at 80 columns, and the
/// examples work where the package puts things.
@Suite("help text")
struct HelpTextTests {
    /// The commands `reservoir help` lists, and the overview (no command).
    static var commands: [[String]] {
        let overview = (try? ReservoirBinary.run(["--help"], environment: ["COLUMNS": "400"]).text) ?? ""
        var names: [[String]] = [[]]
        var inList = false
        for line in overview.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("SUBCOMMANDS:") {
                inList = true
                continue
            }
            if inList, line.hasPrefix("  "), let name = line.split(separator: " ").first { names.append([String(name)]) }
            if inList, line.isEmpty { inList = false }
        }
        return names
    }

    /// The help of `command` up to its usage line, as `help COMMAND` prints it at `columns`.
    static func discussion(_ command: [String], columns: Int) throws -> [Substring] {
        let r = try ReservoirBinary.run(command.isEmpty ? ["--help"] : ["help"] + command, environment: ["COLUMNS": String(columns)])
        #expect(r.status == 0, "\(command): \(r.stderr)")
        let lines = r.text.split(separator: "\n", omittingEmptySubsequences: false)
        return Array(lines.prefix { !$0.hasPrefix("USAGE:") })
    }

    @Test("the overview lists every command: twenty-one and the overview")
    func listed() {
        #expect(Self.commands.count == 22, "\(Self.commands)")
    }

    /// Prose may wrap; an indented line (an example to copy) must come out whole at 80 columns,
    /// as it does on a terminal too wide to wrap anything.
    @Test("examples are never wrapped mid-command", arguments: commands)
    func examplesWhole(_ command: [String]) throws {
        let wide = try Self.discussion(command, columns: 400)
        let narrow = Set(try Self.discussion(command, columns: 80))
        let examples = wide.filter { $0.hasPrefix("  ") }
        for example in examples {
            #expect(narrow.contains(example), "\(command.first ?? "reservoir"): wrapped at 80 columns: \(example)")
        }
    }

    @Test("no example names a path of the source tree (Maildir-samples/ relative), which the package does not have", arguments: commands)
    func noSourceTreePaths(_ command: [String]) throws {
        for line in try Self.discussion(command, columns: 400) where line.hasPrefix("  ") {
            #expect(!line.contains(" Maildir-samples") && !line.contains("=Maildir-samples"), "\(command): \(line)")
        }
    }
}
