/// The options the long-running programs share for telling what happens: `--log-level LEVEL`,
/// `--syslog` and `--metrics ADDRESS`. Each program takes them out of its arguments before it
/// reads its own, so they mean the same in all three.
public struct ServiceOptions: Sendable, Equatable {
    public var level = LogLevel.info
    public var syslog = false
    /// Where `GET /metrics` and `GET /healthz` are answered; nil: nowhere.
    public var metrics: MetricsAddress?

    public init(level: LogLevel = .info, syslog: Bool = false, metrics: MetricsAddress? = nil) {
        self.level = level
        self.syslog = syslog
        self.metrics = metrics
    }

    /// The help text's lines for these options.
    public static let usage = """
          --log-level LEVEL        error, warning, info or debug (default info).
          --syslog                 Log to syslog(3), facility mail, instead of standard error.
          --metrics ADDRESS        Answer GET /metrics (Prometheus) and GET /healthz on PORT
                                   (127.0.0.1), HOST:PORT or [IPV6]:PORT.
        """

    /// Takes the options out of `arguments` (`--name value` and `--name=value`), leaving the
    /// rest in their order; a bad value is a usage error, said as a sentence.
    public static func take(from arguments: inout [String]) -> Result<ServiceOptions, UsageProblem> {
        var options = ServiceOptions()
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard name == "--log-level" || name == "--syslog" || name == "--metrics" else {
                rest.append(argument)
                // Everything after `--` is an operand.
                if argument == "--" {
                    rest += arguments[index...]
                    break
                }
                continue
            }
            if name == "--syslog" {
                guard parts.count == 1 else { return .failure(UsageProblem("--syslog takes no value")) }
                options.syslog = true
                continue
            }
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else {
                guard index < arguments.count else { return .failure(UsageProblem("\(name) needs a value")) }
                value = arguments[index]
                index += 1
            }
            if name == "--log-level" {
                guard let level = LogLevel(name: value) else {
                    return .failure(UsageProblem("--log-level takes error, warning, info or debug; got \(value)"))
                }
                options.level = level
            } else {
                guard let address = MetricsAddress(value) else {
                    return .failure(UsageProblem("--metrics takes PORT, HOST:PORT or [IPV6]:PORT (an IP address); got \(value)"))
                }
                options.metrics = address
            }
        }
        arguments = rest
        return .success(options)
    }
}

public struct UsageProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Where the metrics are served: an IP address and a port. A port alone is on the loopback
/// address 127.0.0.1, so metrics are never reachable from elsewhere unless an address is
/// written out (`0.0.0.0:9464`, `[::]:9464`, a host's own address).
public struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
    /// A numeric IPv4 or IPv6 address, without brackets.
    public var host: String
    public var port: Int

    public init?(_ text: String) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
            guard host.contains(":") else { return nil }
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            guard !host.contains(":") else { return nil }
        }
        guard !host.isEmpty, !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText), (1...65535).contains(port) else {
            return nil
        }
        guard Self.isNumericAddress(host) else { return nil }
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static func isNumericAddress(_ host: String) -> Bool {
        if host.contains(":") {
            return host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in part.count <= 3 && Int(part).map { (0...255).contains($0) } == true }
    }
}
