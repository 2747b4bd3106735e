import MIME

/// The header hash input (RFC 6376 §3.7): the `h=` fields canonicalized, then the
/// DKIM-Signature field itself with its `b=` value emptied and no trailing CRLF.
enum SignedHeaderData {
    static func build(message: Message, fieldIndex: Int, signature: DKIMSignature) -> [UInt8] {
        let fields = message.header.fields
        let relaxed = signature.canonicalization.relaxedHeader
        var data: [UInt8] = []
        data.reserveCapacity(1024)
        // RFC 6376 §5.4.2: fields are picked bottom-up; the signature being verified is not one of them.
        for field in HeaderSelection.select(signature.signedHeaders, from: fields, excluding: fieldIndex) {
            HeaderCanonicalizer.canonicalize(message.bytes, field, relaxed: relaxed, into: &data)
        }
        data += signatureField(message.bytes, fields[fieldIndex], tags: signature.tags, relaxed: relaxed)
        return data
    }

    /// §3.7: the signature field with everything between `b=` and the next `;` (or the end)
    /// deleted, canonicalized, without the final CRLF.
    static func signatureField(_ bytes: [UInt8], _ field: HeaderField, tags: TagList, relaxed: Bool) -> [UInt8] {
        var value = Array(bytes[field.valueRange])
        if let b = tags.tags.first(where: { $0.name == "b" }) {
            let lower = b.rawValueRange.lowerBound - field.valueRange.lowerBound
            let upper = b.rawValueRange.upperBound - field.valueRange.lowerBound
            if lower >= 0, upper <= value.count, lower <= upper { value.removeSubrange(lower..<upper) }
        }
        var out = HeaderCanonicalizer.canonicalize(bytes, field, relaxed: relaxed, value: value)
        if out.count >= 2 { out.removeLast(2) }
        return out
    }
}
