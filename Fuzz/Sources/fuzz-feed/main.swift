@testable import Feed

/// What `reservoir serve` reads from outside: the request's `Authorization`, `If-None-Match` and
/// `If-Modified-Since` fields, and the netrc file. Each must answer without crashing; what is
/// read must hold what its grammar allows, and a date read is written back to the same instant.
/// And what its page makes links of, text from mail: a web link is http(s) without a space or
/// control character, a `tel:` link only `+` and digits, a map link only unreserved bytes and
/// escapes after its fixed prefix. And a form's body, and the `Host` of every request: a host
/// read holds only what a name or an IP literal may, and a name the server was not given is
/// never served.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let credentials = BasicCredentials(authorization: text) {
        // RFC 7617 §2: the user-id holds no colon.
        precondition(!credentials.user.contains(UInt8(ascii: ":")))
        precondition(text.utf8.count <= BasicCredentials.maximumFieldBytes)
    }
    if case .tags(let tags) = EntityTagCondition(fieldValue: text) {
        // RFC 7232 §2.3: etagc excludes DQUOTE, so a tag read holds none.
        for tag in tags { precondition(!tag.opaque.utf8.contains(UInt8(ascii: "\""))) }
        precondition(tags.count <= text.utf8.count)
    }
    if let epoch = HTTPDate.parse(text) {
        precondition(HTTPDate.parse(HTTPDate.format(epoch)) == epoch)
    }
    for entry in NetrcFile(text: text).entries {
        if let machine = entry.machine { precondition(machine.utf8.count <= text.utf8.count) }
    }
    if let web = PageLinks.web(text) {
        let lower = web.lowercased()
        precondition(lower.hasPrefix("https://") || lower.hasPrefix("http://"))
        precondition(!web.unicodeScalars.contains { $0.value <= 0x20 || (0x7F...0x9F).contains($0.value) })
    }
    if let tel = PageLinks.telephone(text) {
        let number = tel.dropFirst("tel:".count).drop { $0 == "+" }
        precondition(tel.hasPrefix("tel:") && !number.isEmpty && number.allSatisfy { $0.isASCII && $0.isNumber })
        precondition((PageLinks.minimumPhoneDigits...PageLinks.maximumPhoneDigits).contains(number.count))
    }
    if let map = PageLinks.map(text) {
        let prefix = "https://www.openstreetmap.org/search?query="
        precondition(map.hasPrefix(prefix))
        precondition(map.dropFirst(prefix.count).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~%".contains($0)) })
    }
    // The page's forms (`--actions`): a body read holds no more fields than `&`-separated pairs,
    // no name twice, and nothing past the limit is read at all.
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    if let fields = FormBody.read(body) {
        precondition(body.count <= FormBody.maxBytes)
        precondition(fields.count <= body.filter { $0 == UInt8(ascii: "&") }.count + 1)
    }
    // DNS rebinding (`ServedHosts`): a Host is read as a lowercase name or a canonical IPv6
    // address, within the limit; served only when it is a listen address, localhost or a
    // configured name, and a wildcard listener serves no name that is not an address.
    if let host = ServedHosts.host(ofField: text) {
        precondition(text.utf8.count <= ServedHosts.maximumNameBytes + 8)
        precondition(host == host.lowercased() && !host.isEmpty)
        precondition(host.utf8.allSatisfy { ServedHosts.isNameByte($0) || $0 == UInt8(ascii: ":") })
        let served = ServedHosts(listen: ListenAddress(host: "127.0.0.1", port: 8645), serverNames: ["cal.example.org"])
        precondition((served.check(text) == .served) == ["127.0.0.1", "localhost", "cal.example.org"].contains(host))
        let wildcard = ServedHosts(listen: ListenAddress(host: "0.0.0.0", port: 8645))
        if wildcard.check(text) == .served {
            precondition(host == "localhost" || host == "0.0.0.0" || ServedHosts.isIPv4Literal(host) || ServedHosts.ipv6(host) != nil)
        }
    } else {
        precondition(ServedHosts(listen: .standard).check(text) == .malformed)
    }
    let request = ConditionalRequest(ifNoneMatch: text, ifModifiedSince: text)
    _ = request.evaluate(tag: EntityTag(strongFor: Array(text.utf8)), lastModified: 1_900_000_000)
    return 0
}
