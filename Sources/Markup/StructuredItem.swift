public import JSON

/// One top-level schema.org item found in an HTML part, as a JSON-LD style object
/// (`@type` plus properties). Microdata items are converted to the same shape, so later
/// stages read one model.
public struct StructuredItem: Sendable, Equatable {
    public enum Source: String, Sendable {
        case jsonLD = "json-ld"
        case microdata
    }

    public var value: JSONValue
    public var source: Source

    public init(value: JSONValue, source: Source) {
        self.value = value
        self.source = source
    }
}

/// Something the extractor repaired or dropped: a stable code and a sentence.
public struct MarkupDiagnostic: Sendable, Hashable {
    /// The stable codes of the markup stage (docs/USAGE.md, "Notes and their codes").
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The JSON-LD was broken and repaired; the message names the repair and its line and column in the script.
        case jsonRepaired = "json-repaired"
        /// The JSON-LD cannot be read from some position on; values read before it are kept.
        case jsonUnrecoverable = "json-unrecoverable"
        /// Values nested deeper than ``MarkupLimits`` allow are dropped.
        case jsonTooDeep = "json-too-deep"
        /// A script larger than ``MarkupLimits`` allow is not read.
        case jsonTooLarge = "json-too-large"
        /// A JSON-LD script without content.
        case jsonLDEmpty = "json-ld-empty"
        /// JSON-LD values that are not objects are ignored.
        case jsonLDNotObject = "json-ld-not-object"
        /// An HTML part larger than ``MarkupLimits`` allow is not read.
        case htmlTooLarge = "html-too-large"
        /// libxml2 returned no document.
        case htmlInvalid = "html-invalid"
        /// An item on a `<p>` closed early by the parser was put back together.
        case microdataRepaired = "microdata-repaired"
        /// An `itemprop` outside any item.
        case microdataOrphanProperty = "microdata-orphan-property"
        /// An element reached twice from one item (`itemref` loops).
        case microdataCycle = "microdata-cycle"
        /// Items nested deeper than ``MarkupLimits`` allow.
        case microdataTooDeep = "microdata-too-deep"
        /// More properties on one item than ``MarkupLimits`` allow.
        case tooManyProperties = "too-many-properties"
        /// More items in one part than ``MarkupLimits`` allow.
        case tooManyItems = "too-many-items"
        /// The same item given twice (JSON-LD and Microdata, or repeated) is kept once.
        case duplicateItem = "duplicate-item"
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The JSON reader's note, as the markup stage reports it.
    public init(_ json: JSONDiagnostic) {
        let code: Code =
            switch json.code {
            case .repaired: .jsonRepaired
            case .unrecoverable: .jsonUnrecoverable
            case .tooDeep: .jsonTooDeep
            case .tooLarge: .jsonTooLarge
            }
        self.init(code: code, message: json.message)
    }
}

/// What one HTML part yields.
public struct MarkupExtraction: Sendable {
    public var items: [StructuredItem]
    public var diagnostics: [MarkupDiagnostic]

    public init(items: [StructuredItem] = [], diagnostics: [MarkupDiagnostic] = []) {
        self.items = items
        self.diagnostics = diagnostics
    }
}

extension MarkupDiagnostic {
    /// One diagnostic per code and message, with a count when repeated.
    static func collapsingRepeats(_ diagnostics: [MarkupDiagnostic]) -> [MarkupDiagnostic] {
        var counts: [MarkupDiagnostic: Int] = [:]
        var order: [MarkupDiagnostic] = []
        for diagnostic in diagnostics {
            if counts[diagnostic] == nil { order.append(diagnostic) }
            counts[diagnostic, default: 0] += 1
        }
        return order.map { diagnostic in
            let count = counts[diagnostic] ?? 1
            return count == 1 ? diagnostic : MarkupDiagnostic(code: diagnostic.code, message: "\(diagnostic.message) (\(count) times)")
        }
    }
}
