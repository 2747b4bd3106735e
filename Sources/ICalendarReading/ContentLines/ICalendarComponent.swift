/// One component (RFC 5545 §3.4, §3.6): `BEGIN:NAME`, its properties, the components inside
/// it, `END:NAME`. Names are upper case.
public struct ICalendarComponent: Sendable, Equatable {
    public var name: String
    public var properties: [ICalendarProperty]
    public var components: [ICalendarComponent]
    /// The physical line of its BEGIN.
    public var line: Int

    public init(name: String, properties: [ICalendarProperty] = [], components: [ICalendarComponent] = [], line: Int = 0) {
        self.name = name
        self.properties = properties
        self.components = components
        self.line = line
    }

    /// The first property named `name` (upper case).
    public func property(_ name: String) -> ICalendarProperty? {
        properties.first { $0.name == name }
    }

    /// Every property named `name` (upper case), in order.
    public func properties(_ name: String) -> [ICalendarProperty] {
        properties.filter { $0.name == name }
    }

    /// Every component named `name` directly inside this one.
    public func components(_ name: String) -> [ICalendarComponent] {
        components.filter { $0.name == name }
    }
}

/// What the grammar reader made of one calendar object: the top-level components (normally one
/// VCALENDAR) and the notes on what it skipped.
public struct ICalendarDocument: Sendable {
    public var components: [ICalendarComponent]
    public var diagnostics: [ICalendarDiagnostic]

    /// The calendars of the object; properties and components outside any VCALENDAR are read
    /// as one more calendar (lenient: some senders omit the wrapper).
    public var calendars: [ICalendarComponent] {
        components.filter { $0.name == "VCALENDAR" }
    }
}

/// The RFC 5545 grammar as a lenient reader: content lines unfolded, components nested by
/// BEGIN/END with an END that names an open component closing everything inside it, lines
/// that do not parse skipped with a note. Never traps; every bound is an ``ICalendarLimits``.
public enum ICalendarParser {
    public static func parse(_ input: [UInt8]) -> ICalendarDocument {
        var diagnostics: [ICalendarDiagnostic] = []
        var bytes = input[...]
        if bytes.count > ICalendarLimits.maximumBytes {
            diagnostics.append(
                ICalendarDiagnostic(.limitExceeded, "the calendar object is larger than \(ICalendarLimits.maximumBytes) bytes; the rest is not read"))
            bytes = bytes.prefix(ICalendarLimits.maximumBytes)
        }
        // A byte order mark is not content.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let unfolded = LineUnfolder.lines(bytes)
        if unfolded.limitHit {
            diagnostics.append(
                ICalendarDiagnostic(.limitExceeded, "more than \(ICalendarLimits.maximumLines) content lines; the rest is not read"))
        }
        var builder = Builder()
        for line in unfolded.lines {
            if line.truncated {
                diagnostics.append(
                    ICalendarDiagnostic(
                        .limitExceeded, "a content line longer than \(ICalendarLimits.maximumLineBytes) bytes; skipped", line: line.number))
                continue
            }
            switch ContentLineParser.parse(line) {
            case .malformed(let why):
                diagnostics.append(ICalendarDiagnostic(.malformedLine, why, line: line.number))
            case .property(let property, let dropped):
                if dropped {
                    diagnostics.append(
                        ICalendarDiagnostic(
                            .limitExceeded, "\(property.name) has more than \(ICalendarLimits.maximumParameters) parameters; the rest are ignored",
                            line: line.number))
                }
                builder.take(property, diagnostics: &diagnostics)
            }
        }
        builder.finish(diagnostics: &diagnostics)
        return ICalendarDocument(components: builder.topLevel, diagnostics: diagnostics)
    }

    /// The component stack while lines are read.
    private struct Builder {
        var stack: [ICalendarComponent] = []
        var topLevel: [ICalendarComponent] = []
        /// Components opened, at any depth, including skipped ones.
        var opened = 0
        /// Depth of BEGINs being skipped (too deep or too many); 0 when reading.
        var skipping = 0
        var componentLimitNoted = false
        var propertyLimitNoted = false
        /// Properties outside any component, kept as an implicit VCALENDAR when a VEVENT follows.
        var loose = ICalendarComponent(name: "VCALENDAR")

        mutating func take(_ property: ICalendarProperty, diagnostics: inout [ICalendarDiagnostic]) {
            switch property.name {
            case "BEGIN":
                let name = property.value.uppercased()
                if skipping > 0 {
                    skipping += 1
                    return
                }
                opened += 1
                if stack.count >= ICalendarLimits.maximumDepth || opened > ICalendarLimits.maximumComponents {
                    let tooDeep = stack.count >= ICalendarLimits.maximumDepth
                    if tooDeep || !componentLimitNoted {
                        diagnostics.append(
                            ICalendarDiagnostic(
                                .limitExceeded,
                                tooDeep
                                    ? "\(name) is nested deeper than \(ICalendarLimits.maximumDepth) components; skipped"
                                    : "more than \(ICalendarLimits.maximumComponents) components; the rest are skipped",
                                line: property.line))
                        if !tooDeep { componentLimitNoted = true }
                    }
                    skipping = 1
                    return
                }
                stack.append(ICalendarComponent(name: name, line: property.line))
            case "END":
                if skipping > 0 {
                    skipping -= 1
                    return
                }
                let name = property.value.uppercased()
                guard let open = stack.lastIndex(where: { $0.name == name }) else {
                    diagnostics.append(
                        ICalendarDiagnostic(.unbalancedComponent, "END:\(name) closes no open component; ignored", line: property.line))
                    return
                }
                // An END naming an outer component closes the ones left open inside it.
                while stack.count > open + 1 {
                    let inner = stack[stack.count - 1]
                    diagnostics.append(
                        ICalendarDiagnostic(.unbalancedComponent, "\(inner.name) is not closed before END:\(name); closed there", line: property.line)
                    )
                    close()
                }
                close()
            default:
                if skipping > 0 { return }
                guard !stack.isEmpty else {
                    if loose.properties.count < ICalendarLimits.maximumProperties { loose.properties.append(property) }
                    return
                }
                if stack[stack.count - 1].properties.count >= ICalendarLimits.maximumProperties {
                    if !propertyLimitNoted {
                        diagnostics.append(
                            ICalendarDiagnostic(
                                .limitExceeded,
                                "\(stack[stack.count - 1].name) has more than \(ICalendarLimits.maximumProperties) properties; the rest are ignored",
                                line: property.line))
                        propertyLimitNoted = true
                    }
                    return
                }
                stack[stack.count - 1].properties.append(property)
            }
        }

        private mutating func close() {
            guard let done = stack.popLast() else { return }
            if stack.isEmpty {
                if done.name == "VCALENDAR" {
                    topLevel.append(done)
                } else {
                    // A component outside any VCALENDAR (a bare VEVENT): wrapped in one with the
                    // loose properties (METHOD written before it, say).
                    var wrapper = loose
                    wrapper.components.append(done)
                    wrapper.line = done.line
                    topLevel.append(wrapper)
                }
            } else {
                stack[stack.count - 1].components.append(done)
            }
        }

        mutating func finish(diagnostics: inout [ICalendarDiagnostic]) {
            while let open = stack.last {
                diagnostics.append(
                    ICalendarDiagnostic(.unbalancedComponent, "\(open.name) has no END; closed at the end of the object", line: open.line))
                close()
            }
        }
    }
}
