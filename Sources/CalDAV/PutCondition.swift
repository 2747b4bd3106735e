/// Which version a PUT may overwrite (RFC 4791 §5.3.2, RFC 9110 §13.1).
public enum PutCondition: Sendable, Equatable {
    /// Only when no resource has the name: `If-None-Match: *` (RFC 9110 §13.1.2); 412 otherwise.
    case create
    /// Only the version with this entity tag: `If-Match: "…"` (RFC 9110 §13.1.1); 412 otherwise.
    case replace(etag: String)
    /// Whatever is there, if anything.
    case unconditional
}
