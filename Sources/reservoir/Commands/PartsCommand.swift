import ArgumentParser
import CommandCore
import MIME
import Mailbox
import Output
import Pipeline

struct PartsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parts",
        abstract: "Show what the MIME reader saw: decoded header fields and the part tree.",
        discussion: """
            For debugging mail: the decoded Subject, From, Date and Message-ID, then every part \
            with its content type, charset, transfer encoding, disposition, decoded file name and \
            decoded size, then what the reader noticed and worked around. Parts are numbered \
            from the message itself (1), its children 1.1, 1.2, and so on.

            Examples:
              reservoir parts message.eml
              reservoir parts - --json < message.eml
            """)

    @Argument(help: ArgumentHelp("A message file, or - for standard input.", valueName: "file"))
    var file: String = "-"

    @Flag(name: .customLong("json"), help: "Print {\"subject\", \"from\", \"date\", \"parts\": [...], \"diagnostics\": [...]}.")
    var json = false

    func run() throws {
        let raw: RawMessage
        do {
            // Every part is shown with its size, so a large message is read whole here.
            raw = file == "-" ? try MessageSource.standardInput() : try MessageSource.file(file).whole()
        } catch {
            throw CommandFailure.unreadable(file, "\(error)")
        }
        let message = Message(bytes: raw.bytes)
        if json {
            Output.line(PartsRenderer.json(message))
        } else {
            Output.write(PartsRenderer.text(message))
        }
    }
}
