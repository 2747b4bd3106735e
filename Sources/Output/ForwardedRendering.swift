import JSON
import Pipeline
import Trust

/// The part of a banner for messages attached to a message (``ForwardedMessage``): who
/// forwarded each and who vouched, then the attached message's own banner, indented.
extension BannerRenderer {
    func forwardedLines(_ report: MessageReport) -> TerminalText {
        var out: TerminalText = ""
        for forwarded in report.forwarded {
            out += line("Forwarded", Self.forwarderText(forwarded))
            let inner = render(forwarded.report)
            for text in inner.split(separator: "\n", omittingEmptySubsequences: false) where !text.isEmpty {
                out += TerminalText(trusted: "    " + String(text) + "\n")
            }
        }
        return out
    }

    /// "by ADDRESS, vouched by …" or why the forward is not taken for the user's.
    static func forwarderText(_ forwarded: ForwardedMessage) -> TerminalText {
        let who = forwarded.forwarder.forwarder.map { "by \($0)" } ?? "by an unknown sender"
        switch forwarded.forwarder.vouch {
        case .dkim(let domain):
            return "\(who), you (DKIM signature by \(domain)); the attached message vouched by \(forwarded.report.trust.vouchingDomain ?? "nobody")"
        case .authenticationResults(let id, let domain):
            return
                "\(who), you (\(id)'s Authentication-Results: dkim=pass \(domain)); the attached message vouched by \(forwarded.report.trust.vouchingDomain ?? "nobody")"
        case nil:
            return "\(who): \(forwarded.forwarder.refusal?.sentence ?? "not shown to be you")"
        }
    }

    static func forwardedJSON(_ report: MessageReport) -> JSONValue {
        .array(
            report.forwarded.map { forwarded in
                JSONBuild.object([
                    ("position", .number(Double(forwarded.position))),
                    (
                        "forwarder",
                        JSONBuild.object([
                            ("address", forwarded.forwarder.forwarder.map(JSONValue.string)),
                            ("vouched", .bool(forwarded.forwarder.isUser)),
                            ("via", forwarded.forwarder.vouch.map(vouchJSON)),
                            ("refusal", forwarded.forwarder.refusal.map { .string($0.code.rawValue) }),
                        ])
                    ),
                    ("innerTrusted", .bool(forwarded.innerTrusted)),
                    ("message", jsonValue(forwarded.report, verdict: forwarded.verdict(of:))),
                ])
            })
    }

    /// How a forward was shown to be the user's: `{"method": "dkim", "domain"}` or
    /// `{"method": "authentication-results", "authservId", "domain"}`.
    static func vouchJSON(_ vouch: ForwarderVouch) -> JSONValue {
        switch vouch {
        case .dkim(let domain):
            JSONBuild.object([("method", .string("dkim")), ("domain", .string(domain))])
        case .authenticationResults(let id, let domain):
            JSONBuild.object([("method", .string("authentication-results")), ("authservId", .string(id)), ("domain", .string(domain))])
        }
    }

    /// The trust path for JSON: `dkim`, `arc` with its sealer and instance, or `page` with its
    /// address and host (`reservoir add URL`).
    static func pathJSON(_ path: TrustPath) -> JSONValue {
        switch path {
        case .dkim: JSONBuild.object([("method", .string("dkim"))])
        case .arc(let sealer, let instance):
            JSONBuild.object([("method", .string("arc")), ("sealer", .string(sealer)), ("instance", .number(Double(instance)))])
        case .page(let url, let host):
            JSONBuild.object([("method", .string("page")), ("url", .string(url)), ("host", .string(host))])
        }
    }
}
