/// The one shape of a target's error: a code whose raw value is the stable word callers, tests
/// and programs match, and a detail for people. Equal by code alone, so a test matches codes,
/// never text; written `code: detail`.
public protocol CodedError: Error, Equatable, CustomStringConvertible {
    associatedtype Code: RawRepresentable & Sendable & Equatable where Code.RawValue == String
    var code: Code { get }
    var detail: String { get }
}

extension CodedError {
    public var description: String { "\(code.rawValue): \(detail)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
}
