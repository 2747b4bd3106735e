import DKIM
import MIME
import Pipeline
import ReservoirBase

@testable import Output

/// The Authentication-Results parser (RFC 8601 §2.2) on arbitrary field values, and the
/// formatter on arbitrary results. The first byte chooses:
/// - even: the rest is a field value. Parsing never traps; a payload that parses formats to a
///   value that parses back to it (its text reduced to printable ASCII, as the formatter writes
///   it), and ``AuthenticationResultsPayload/claims(_:authservID:)`` holds for its own id; a
///   value that claims `mx.example` once its encoded words are decoded claims it as written,
///   and an ASCII value that claims it does so written as one encoded word too.
/// - odd: the rest, split at NUL bytes, gives an authserv-id, signature domains, selectors and
///   identities, and result codes. The filter's field for them parses back with the same
///   authserv-id and one result per signature, claims that id, and the forged-field scanner
///   removes it from a header.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] & 1 == 0 {
        parseAndFormat(bytes)
    } else {
        formatAndParse(bytes)
    }
    return 0
}

func parseAndFormat(_ bytes: [UInt8]) {
    let claimed = AuthenticationResultsPayload.claims(bytes, authservID: "mx.example")
    // A value that claims our id once its encoded words are decoded claims it as it stands.
    let decoded = Array(HeaderText.decode(bytes).text.utf8)
    if AuthenticationResultsPayload.claims(decoded, authservID: "mx.example") {
        precondition(claimed, "claims mx.example once decoded, not as written")
    }
    // An ASCII value without encoded words, written as one encoded word, claims what it claims.
    let hasMarker = zip(bytes, bytes.dropFirst()).contains { $0 == UInt8(ascii: "=") && $1 == UInt8(ascii: "?") }
    if bytes.count <= 512, !hasMarker, bytes.allSatisfy({ $0 < 0x80 && $0 != 0x0D && $0 != 0x0A }) {
        let word = Array(("=?utf-8?B?" + Base64Text.encode(bytes) + "?=").utf8)
        if AuthenticationResultsPayload.claims(HeaderText.unfold(bytes), authservID: "mx.example") {
            precondition(AuthenticationResultsPayload.claims(word, authservID: "mx.example"), "not claimed as an encoded word")
        }
    }
    guard case .success(let payload) = AuthenticationResultsPayload.parse(bytes) else { return }
    let formatted = payload.formatted
    guard case .success(let again) = AuthenticationResultsPayload.parse(formatted) else {
        preconditionFailure("the formatted payload does not parse: \(formatted)")
    }
    precondition(again == printable(payload), "round trip: \(formatted)")
    precondition(AuthenticationResultsPayload.claims(bytes, authservID: payload.authservID), "does not claim its own id")
    // What the filter writes for that id is read as claiming it.
    let own = AuthenticationResults(authservID: payload.authservID, signatures: []).value
    precondition(
        AuthenticationResultsPayload.claims(Array(own.utf8), authservID: AuthenticationResults.writtenID(payload.authservID)),
        "its own field: \(own)")
}

/// The payload as the formatter writes it: text in printable ASCII, keywords never empty.
func printable(_ payload: AuthenticationResultsPayload) -> AuthenticationResultsPayload {
    let p = AuthenticationResultsPayload.printable
    var out = payload
    out.authservID = p(payload.authservID)
    out.results = payload.results.map { info in
        var info = info
        info.reason = info.reason.map(p)
        info.properties = info.properties.map { .init(type: $0.type, name: $0.name, value: p($0.value)) }
        return info
    }
    return out
}

func formatAndParse(_ bytes: [UInt8]) {
    let words = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    guard let id = words.first else { return }
    let codes = DKIMVerification.Code.allCases
    let verdicts: [DKIMResult] = [.pass, .fail, .neutral, .temperror, .permerror, .policy, .none]
    var signatures: [DKIMVerification] = []
    var index = 1
    while index + 2 < words.count, signatures.count < 8 {
        let pick = words[index].utf8.reduce(0) { $0 &+ Int($1) }
        signatures.append(
            DKIMVerification(
                result: verdicts[pick % verdicts.count], code: pick % 5 == 0 ? nil : codes[pick % codes.count],
                reason: words[index], domain: words[index + 1], selector: words[index + 2],
                identity: index + 3 < words.count ? words[index + 3] : nil))
        index += 4
    }
    let message: AuthenticationResults.MessageResult? = id.utf8.count % 3 == 0 ? .timeBudgetExceeded : nil
    let results = AuthenticationResults(authservID: id, signatures: signatures, messageResult: message)
    let field = results.field(lineEnding: id.utf8.count % 2 == 0 ? "\n" : "\r\n")
    let value = Array(field.utf8.dropFirst("Authentication-Results:".utf8.count))
    guard case .success(let parsed) = AuthenticationResultsPayload.parse(value) else {
        preconditionFailure("the filter's field does not parse: \(field)")
    }
    precondition(parsed.authservID == AuthenticationResults.writtenID(id), "another authserv-id: \(field)")
    precondition(parsed.results.count == max(1, signatures.count), "results: \(field)")
    precondition(parsed == results.payload, "round trip: \(field)")
    precondition(AuthenticationResultsPayload.claims(value, authservID: AuthenticationResults.writtenID(id)), "does not claim its id: \(field)")
    let header = Array(("From: a@b.example\n" + field + "Subject: s\n\nbody\n").utf8)
    let forged = ForgedFieldScanner.find(in: header, authservID: id)
    precondition(forged.removals == [18..<(18 + field.utf8.count)], "not removed: \(field)")
}
