import Glibc
import JSON
public import MIME
import Markup

/// What `reservoir parts` shows: the decoded Subject, From, Date and Message-ID and the part
/// tree as the MIME reader saw it, with what it noticed.
///
/// Parts are numbered from the message itself: the root is `1`, its children `1.1`, `1.2`…;
/// a message/rfc822 part holds its message as its one child.
public enum PartsRenderer {
    public static func json(_ message: Message) -> String {
        var pairs: [(String, JSONValue)] = [
            ("subject", message.subject.map(JSONValue.string) ?? .null),
            ("from", .array(message.from.map(address))),
            ("to", .array(message.addresses("To").map(address))),
            ("date", message.date.map { .string(isoDate($0)) } ?? .null),
            ("messageId", message.messageID.map(JSONValue.string) ?? .null),
        ]
        pairs.append(("parts", .array([part(message.root, path: "1", in: message)])))
        pairs.append(("diagnostics", .array(message.diagnostics.map(diagnostic))))
        return JSONValue.object(JSONObject(pairs: pairs)).prettyPrinted()
    }

    /// The fields and the part tree for people; every value read from the message (decoded
    /// fields, media types, file names, diagnostics) is escaped (``TerminalText``).
    public static func text(_ message: Message) -> String {
        var out: TerminalText = ""
        func line(_ label: String, _ value: String?) {
            out += "\(label + String(repeating: " ", count: max(1, 11 - label.count)))\(value ?? "(none)")\n"
        }
        line("Subject", message.subject)
        line("From", message.from.isEmpty ? nil : message.from.map(\.description).joined(separator: ", "))
        if message.fromFieldCount > 1 { out += "           (\(message.fromFieldCount) From fields)\n" }
        line("Date", message.date.map(isoDate))
        line("Message-ID", message.messageID)
        out += "\n"
        func walk(_ p: MIMEPart, _ path: String) {
            let indent = String(repeating: "  ", count: p.depth)
            var columns = [indent + path, describe(p.contentType)]
            if p.isLeaf {
                columns.append(p.transferEncoding.description)
                let decoded = TransferDecoding.decode(message.bytes, in: p.bodyRange, encoding: p.transferEncoding)
                columns.append(byteCount(decoded.bytes.count))
            }
            if let disposition = disposition(p, in: message) { columns.append(disposition) }
            if let name = p.filename { columns.append("\"" + name + "\"") }
            out += "\(columns.joined(separator: "  "))\n"
            for (index, child) in p.children.enumerated() { walk(child, path + "." + String(index + 1)) }
        }
        walk(message.root, "1")
        let diagnostics = message.diagnostics
        if !diagnostics.isEmpty {
            out += "\nDiagnostics:\n"
            for d in diagnostics { out += "  \(d.description)\n" }
        }
        return out.text
    }

    static func part(_ p: MIMEPart, path: String, in message: Message) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("path", .string(path)),
            ("contentType", .string(p.contentType.mediaType)),
            ("charset", p.contentType.charset.map(JSONValue.string) ?? .null),
            ("transferEncoding", .string(p.transferEncoding.description)),
            ("disposition", disposition(p, in: message).map(JSONValue.string) ?? .null),
            ("filename", p.filename.map(JSONValue.string) ?? .null),
        ]
        if p.isLeaf {
            let decoded = TransferDecoding.decode(message.bytes, in: p.bodyRange, encoding: p.transferEncoding)
            pairs.append(("size", .number(Double(decoded.bytes.count))))
            pairs.append(("diagnostics", .array(decoded.diagnostics.map(diagnostic))))
        } else {
            // A container's size is its body as written (boundaries, preamble and epilogue included).
            pairs.append(("size", .number(Double(p.bodyRange.count))))
        }
        if p.contentType.isMultipart, let boundary = p.contentType.parameters["boundary"] {
            pairs.append(("boundary", .string(boundary)))
        }
        pairs.append(
            (
                "children",
                .array(
                    p.children.enumerated().map { index, child in
                        part(child, path: path + "." + String(index + 1), in: message)
                    })
            ))
        return .object(JSONObject(pairs: pairs))
    }

    static func address(_ a: MailboxAddress) -> JSONValue {
        .object(JSONObject(pairs: [("name", a.displayName.map(JSONValue.string) ?? .null), ("address", .string(a.address))]))
    }

    static func diagnostic(_ d: MIMEDiagnostic) -> JSONValue {
        .object(
            JSONObject(pairs: [
                ("code", .string(d.code.rawValue)), ("offset", .number(Double(d.offset))),
                ("detail", .string(d.detail)),
            ]))
    }

    /// The Content-Disposition type, or nil when the part has none.
    static func disposition(_ p: MIMEPart, in message: Message) -> String? {
        guard let field = p.header.first("Content-Disposition") else { return nil }
        let type = ContentDisposition.parse(message.bytes[field.valueRange]).type
        return type.isEmpty ? nil : type
    }

    static func describe(_ type: ContentType) -> String {
        var text = type.mediaType
        if let charset = type.charset { text += "; charset=" + charset }
        return text
    }

    static func byteCount(_ n: Int) -> String {
        n == 1 ? "1 byte" : "\(n) bytes"
    }

    /// RFC 3339 local time with the message's own offset.
    static func isoDate(_ date: MessageDate) -> String {
        var t = time_t(date.epochSeconds + Int64(date.offsetSeconds))
        var tm = Glibc.tm()
        gmtime_r(&t, &tm)
        func two(_ v: Int32) -> String { v < 10 ? "0" + String(v) : String(v) }
        let offset = abs(date.offsetSeconds) / 60
        return String(tm.tm_year + 1900) + "-" + two(tm.tm_mon + 1) + "-" + two(tm.tm_mday) + "T"
            + two(tm.tm_hour) + ":" + two(tm.tm_min) + ":" + two(tm.tm_sec)
            + (date.offsetSeconds < 0 ? "-" : "+") + two(Int32(offset / 60)) + ":" + two(Int32(offset % 60))
    }
}
