internal import CLibCurl
internal import CLibCurlLoader
internal import CurlTransport
import Glibc

/// How a connection is made: certificate authorities, the netrc file, the time-out.
public struct IMAPSettings: Sendable {
    /// A PEM file of CA certificates to verify the server with, instead of the system's.
    public var caFile: String?
    /// The netrc file the password comes from; nil: `$HOME/.netrc`.
    public var netrcFile: String?
    /// A file whose first line is an OAuth 2 bearer token, read for each connection: the login
    /// is then SASL `oauthMechanism` with it, and the netrc file is not used.
    public var oauthTokenFile: String?
    public var oauthMechanism: OAuthMechanism
    public var timeoutMilliseconds: Int

    public init(
        caFile: String? = nil, netrcFile: String? = nil, oauthTokenFile: String? = nil, oauthMechanism: OAuthMechanism = .xoauth2,
        timeoutMilliseconds: Int = IMAPLimits.defaultTimeoutMilliseconds
    ) {
        self.caFile = caFile
        self.netrcFile = netrcFile
        self.oauthTokenFile = oauthTokenFile
        self.oauthMechanism = oauthMechanism
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}

/// One IMAP session over TLS, read-only (RFC 9051). libcurl connects (STARTTLS first for
/// `imap://`), verifies the server's certificate, and logs in (CURLOPT_CONNECT_ONLY: greeting,
/// CAPABILITY, AUTHENTICATE or LOGIN); the commands this client needs are then written here over
/// libcurl's TLS connection: `EXAMINE` (§6.3.3: the mailbox opened read-only), `UID FETCH n:*
/// (UID RFC822.SIZE)` and `UID FETCH u BODY.PEEK[]` (§6.4.5: `.PEEK` sets no `\Seen`), and for
/// waiting `CAPABILITY` and `IDLE` … `DONE` (RFC 2177). libcurl's own fetch URL would `SELECT`
/// the mailbox read-write and fetch `BODY[]`, which marks it read.
///
/// Not for concurrent use.
public final class IMAPConnection {
    public let url: IMAPMailboxURL
    private let settings: IMAPSettings
    private let handle: CurlEasyHandle
    private var socket: curl_socket_t = -1
    private var reader = IMAPResponseReader()
    private var tagNumber = 0

    /// Connects and logs in. Throws `IMAPError` with the reason: the netrc or CA file, libcurl,
    /// the certificate, the login, the network.
    public init(url: IMAPMailboxURL, settings: IMAPSettings) throws(IMAPError) {
        self.url = url
        self.settings = settings
        // The token is read again for each connection: another tool refreshes it (they last an hour).
        let token = try settings.oauthTokenFile.map { path throws(IMAPError) in try OAuthTokenFile.read(path) }
        var netrc: String?
        if token == nil {
            do { netrc = try CurlNetrc.resolve(settings.netrcFile) } catch { throw IMAPError(.netrcUnusable, error.detail) }
            guard netrc != nil else {
                throw IMAPError(.netrcUnusable, "no netrc file ($HOME/.netrc or --netrc) holds the password for \(url.host)")
            }
        }
        if let caFile = settings.caFile, access(caFile, R_OK) != 0 {
            throw IMAPError(.caFileUnreadable, "cannot read the CA file \(caFile): \(String(cString: strerror(errno)))")
        }
        guard reservoir_libcurl_load() != 0 else {
            throw IMAPError(.libcurlUnavailable, String(cString: reservoir_libcurl_error()) + "; install libcurl4")
        }
        guard let handle = CurlEasyHandle() else { throw IMAPError(.libcurlUnavailable, "libcurl could not make a handle (curl_easy_init)") }
        self.handle = handle
        let timeout = max(1, settings.timeoutMilliseconds)
        handle.reset()
        handle.set(CURLOPT_URL, url.serverURL, "CURLOPT_URL")
        handle.set(CURLOPT_PROTOCOLS_STR, url.scheme, "CURLOPT_PROTOCOLS_STR")
        // CURLUSESSL_ALL: "Require SSL for all communication or fail with CURLE_USE_SSL_FAILED"
        // — for imap:// libcurl sends STARTTLS after the greeting and CAPABILITY, and gives up
        // before any login when the server does not offer it (RFC 8314 §3.3 is why a client
        // must not fall back: a man in the middle strips STARTTLS from CAPABILITY).
        handle.set(CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue), "CURLOPT_USE_SSL")
        handle.set(CURLOPT_CONNECT_ONLY, 1, "CURLOPT_CONNECT_ONLY")
        handle.set(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        handle.set(CURLOPT_TIMEOUT_MS, timeout, "CURLOPT_TIMEOUT_MS")
        handle.set(CURLOPT_CONNECTTIMEOUT_MS, timeout, "CURLOPT_CONNECTTIMEOUT_MS")
        // Verification stays on (CURLOPT_SSL_VERIFYPEER and _VERIFYHOST default to on).
        if let caFile = settings.caFile { handle.set(CURLOPT_CAINFO, caFile, "CURLOPT_CAINFO") }
        if let token {
            // SASL only, this mechanism only (RFC 5092 §3.2's ;AUTH=): never LOGIN, whatever the
            // server offers; a server without it refuses the login (CURLE_LOGIN_DENIED).
            handle.set(CURLOPT_XOAUTH2_BEARER, token, "CURLOPT_XOAUTH2_BEARER")
            handle.set(CURLOPT_LOGIN_OPTIONS, "AUTH=" + settings.oauthMechanism.rawValue, "CURLOPT_LOGIN_OPTIONS")
        } else if let netrc {
            handle.set(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue), "CURLOPT_NETRC")
            handle.set(CURLOPT_NETRC_FILE, netrc, "CURLOPT_NETRC_FILE")
        }
        if let refused = handle.refusedOption {
            throw IMAPError(.libcurlUnavailable, "libcurl refuses \(refused.name): \(handle.message(for: refused.code))")
        }
        let code = handle.perform()
        guard code == CURLE_OK else { throw Self.failure(code, handle.message(for: code)) }
        guard reservoir_curl_getinfo_socket(handle.raw, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK, socket >= 0 else {
            throw IMAPError(.unreachable, "libcurl kept no connection open")
        }
    }

    /// The mailbox opened read-only (`EXAMINE`, RFC 9051 §6.3.3): its UIDVALIDITY and how many
    /// messages it holds.
    public func examine() throws(IMAPError) -> (uidValidity: Int64, exists: Int64) {
        let (responses, status) = try command("EXAMINE " + url.quotedMailbox)
        switch status {
        case .ok: break
        case .no(let text), .bad(let text): throw IMAPError(.mailboxRefused, "EXAMINE \(url.mailbox): \(text)")
        }
        var validity: Int64?
        var exists: Int64 = 0
        for response in responses {
            let words = response.words
            // `* OK [UIDVALIDITY 3857529045]` (§7.1) and `* 172 EXISTS` (§7.4.1).
            if let value = response.number(after: "UIDVALIDITY") { validity = value }
            if words.count == 3, words[2].uppercased() == "EXISTS", let count = IMAPUntagged.number(words[1]) { exists = count }
        }
        // §7.1: "UIDVALIDITY … If this is missing, the client can not make any assumptions about UIDs."
        guard let validity, validity > 0 else { throw IMAPError(.protocolViolation, "EXAMINE \(url.mailbox) answered no UIDVALIDITY") }
        return (validity, exists)
    }

    /// The UIDs above `after` and each message's size, lowest first (`UID FETCH after+1:*
    /// (UID RFC822.SIZE)`). `n:*` names the highest UID even when it is below n (§6.4.8), so
    /// UIDs not above `after` are left out here.
    public func messages(after: Int64) throws(IMAPError) -> [(uid: Int64, size: Int64)] {
        let (responses, status) = try command("UID FETCH \(after + 1):* (UID RFC822.SIZE)")
        guard status == .ok else { throw IMAPError(.protocolViolation, "UID FETCH of the message list: \(status)") }
        var found: [Int64: Int64] = [:]
        for response in responses {
            let words = response.words
            guard words.count >= 3, words[2].uppercased() == "FETCH", let uid = response.number(after: "UID"), uid > after,
                let size = response.number(after: "RFC822.SIZE")
            else { continue }
            found[uid] = size
        }
        return found.sorted { $0.key < $1.key }.map { (uid: $0.key, size: $0.value) }
    }

    /// The whole message `uid` as the server keeps it (`UID FETCH uid BODY.PEEK[]`), at most
    /// `limit` bytes; nil when the server no longer has it (expunged meanwhile).
    public func message(uid: Int64, limit: Int) throws(IMAPError) -> [UInt8]? {
        reader.literalLimit = limit
        defer { reader.literalLimit = IMAPLimits.otherLiteralBytes }
        let (responses, status) = try command("UID FETCH \(uid) BODY.PEEK[]")
        guard status == .ok else { throw IMAPError(.protocolViolation, "UID FETCH \(uid) BODY.PEEK[]: \(status)") }
        // The FETCH response for this UID that carries `BODY[] {N}`; others (flag changes
        // another client made) are left alone.
        for response in responses where response.number(after: "UID") == uid && response.literals.count == 1 {
            let text = String(decoding: response.text, as: UTF8.self).uppercased()
            if text.contains("BODY[] {"), let body = response.literals.first { return body }
        }
        return nil
    }

    /// The server's capabilities after login (`CAPABILITY`, RFC 9051 §6.1.1), in upper case:
    /// asked again because a server may offer more once the user is known (§6.2.2).
    public func capabilities() throws(IMAPError) -> Set<String> {
        let (responses, status) = try command("CAPABILITY")
        guard status == .ok else { throw IMAPError(.protocolViolation, "CAPABILITY: \(status)") }
        var found: Set<String> = []
        for response in responses {
            let words = response.words
            guard words.count >= 2, words[1].uppercased() == "CAPABILITY" else { continue }
            for word in words.dropFirst(2) { found.insert(word.uppercased()) }
        }
        return found
    }

    /// The connection's socket, for waiting on several connections at once with poll(2).
    public var descriptor: Int32 { socket }

    /// Whether this connection waits for new mail in `IDLE` between reads: the server offers
    /// it (CAPABILITY) and the caller wants it.
    public var idles = false

    /// Set when an untagged EXISTS or RECENT arrives with a command's answer (RFC 9051
    /// §7.4.1: the mailbox grew): mail that came while reading, which `IDLE` will not report.
    public var mailboxChanged = false

    /// The tag of the `IDLE` command in progress, nil when none is.
    private var idleTag: String?

    /// Starts `IDLE` (RFC 2177 §3): sends it and waits for the server's `+`. True when the
    /// server reported a change meanwhile (an untagged response before the `+`).
    public func startIdle() throws(IMAPError) -> Bool {
        tagNumber += 1
        let tag = "R\(tagNumber)"
        try send(Array("\(tag) IDLE\r\n".utf8))
        var changed = false
        while true {
            guard let item = try nextResponse(idleMilliseconds: max(1, settings.timeoutMilliseconds)) else { continue }
            guard case .line(let response) = item else { continue }
            let line = response.text
            if line.first == UInt8(ascii: "+") {
                idleTag = tag
                return changed
            }
            if line.starts(with: Array("* ".utf8)) {
                try Self.refuseBye(line)
                changed = true
                continue
            }
            if line.starts(with: Array((tag + " ").utf8)) {
                throw IMAPError(.protocolViolation, "IDLE refused: \(String(decoding: line.dropFirst(tag.utf8.count + 1).prefix(80), as: UTF8.self))")
            }
            throw IMAPError(.protocolViolation, "an unexpected response line to IDLE")
        }
    }

    /// While idling: reads what the server has sent without waiting; true when it reported a
    /// change to the mailbox (RFC 2177 §3: "EXISTS", "EXPUNGE", "FETCH" or "RECENT" — any
    /// untagged response but a keep-alive `OK` counts, the next read finds what is new).
    public func idleChanged() throws(IMAPError) -> Bool {
        guard idleTag != nil else { return false }
        var changed = false
        var count = 0
        while let item = try availableResponse() {
            guard case .line(let response) = item else { continue }
            count += 1
            guard count <= IMAPLimits.responsesPerCommand else {
                throw IMAPError(.protocolViolation, "more than \(IMAPLimits.responsesPerCommand) responses during one IDLE wait")
            }
            let line = response.text
            guard line.starts(with: Array("* ".utf8)) else {
                throw IMAPError(.protocolViolation, "a response other than an untagged one during IDLE")
            }
            try Self.refuseBye(line)
            let words = response.words
            // `* OK Still here` (a keep-alive, §7.1.1) tells of no change.
            if words.count >= 2, words[1].uppercased() == "OK" { continue }
            changed = true
        }
        return changed
    }

    /// Ends `IDLE`: `DONE` and the tagged status of the `IDLE` command (RFC 2177 §3).
    public func endIdle() throws(IMAPError) {
        guard let tag = idleTag else { return }
        idleTag = nil
        try send(Array("DONE\r\n".utf8))
        while true {
            guard let item = try nextResponse(idleMilliseconds: max(1, settings.timeoutMilliseconds)) else { continue }
            guard case .line(let response) = item else { continue }
            let line = response.text
            if line.starts(with: Array("* ".utf8)) {
                try Self.refuseBye(line)
                continue
            }
            guard line.starts(with: Array((tag + " ").utf8)) else {
                throw IMAPError(.protocolViolation, "an unexpected response line after DONE")
            }
            let word = String(decoding: line.dropFirst(tag.utf8.count + 1).prefix(3), as: UTF8.self).uppercased()
            guard word == "OK" || word == "OK " else { throw IMAPError(.protocolViolation, "IDLE ended without OK") }
            return
        }
    }

    /// §7.1.5: BYE — the server is closing the connection.
    private static func refuseBye(_ line: [UInt8]) throws(IMAPError) {
        if String(decoding: line.prefix(6), as: UTF8.self).uppercased() == "* BYE " {
            throw IMAPError(.unreachable, "the server closed the session: " + String(decoding: line.dropFirst(6).prefix(200), as: UTF8.self))
        }
    }

    /// Sends `tag text` and reads to its tagged status; the untagged responses before it.
    func command(_ text: String) throws(IMAPError) -> ([IMAPUntagged], IMAPStatus) {
        tagNumber += 1
        let tag = "R\(tagNumber)"
        try send(Array("\(tag) \(text)\r\n".utf8))
        var responses: [IMAPUntagged] = []
        let deadlineSpan = max(1, settings.timeoutMilliseconds)
        while true {
            guard let item = try nextResponse(idleMilliseconds: deadlineSpan) else { continue }
            guard case .line(let response) = item else { continue }
            let line = response.text
            if line.starts(with: Array("* ".utf8)) {
                guard responses.count < IMAPLimits.responsesPerCommand else {
                    throw IMAPError(.protocolViolation, "more than \(IMAPLimits.responsesPerCommand) responses to one command")
                }
                // §7.1.5: BYE — the server is closing the connection.
                if String(decoding: line.prefix(6), as: UTF8.self).uppercased() == "* BYE " {
                    throw IMAPError(.unreachable, "the server closed the session: " + String(decoding: line.dropFirst(6), as: UTF8.self))
                }
                let words = response.words
                if words.count == 3, ["EXISTS", "RECENT"].contains(words[2].uppercased()) { mailboxChanged = true }
                responses.append(response)
            } else if line.starts(with: Array((tag + " ").utf8)) {
                let rest = String(decoding: line.dropFirst(tag.utf8.count + 1), as: UTF8.self)
                let word = rest.prefix(while: { $0 != " " }).uppercased()
                let detail = String(rest.dropFirst(word.count).drop(while: { $0 == " " }))
                switch word {
                case "OK": return (responses, .ok)
                case "NO": return (responses, .no(detail))
                case "BAD": return (responses, .bad(detail))
                default: throw IMAPError(.protocolViolation, "a tagged status that is not OK, NO or BAD")
                }
            } else {
                // A continuation request (`+`) or another tag: nothing this client asked for.
                throw IMAPError(
                    .protocolViolation, "an unexpected response line: \(String(decoding: line.prefix(80), as: UTF8.self).debugDescription)")
            }
        }
    }

    private func send(_ bytes: [UInt8]) throws(IMAPError) {
        var offset = 0
        while offset < bytes.count {
            var sent = 0
            let code = bytes.withUnsafeBytes { buffer in
                curl_easy_send(handle.raw, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, &sent)
            }
            if code == CURLE_AGAIN {
                try wait(for: Int16(POLLOUT), milliseconds: settings.timeoutMilliseconds)
                continue
            }
            guard code == CURLE_OK else { throw Self.failure(code, handle.message(for: code)) }
            offset += sent
        }
    }

    /// A response already received, reading what the connection holds without waiting; nil
    /// when none is complete yet.
    private func availableResponse() throws(IMAPError) -> IMAPResponseReader.Item? {
        var chunk = [UInt8](repeating: 0, count: IMAPLimits.readChunkBytes)
        while true {
            if let item = try reader.next() { return item }
            var received = 0
            let code = chunk.withUnsafeMutableBytes { buffer in curl_easy_recv(handle.raw, buffer.baseAddress, buffer.count, &received) }
            if code == CURLE_AGAIN { return nil }
            guard code == CURLE_OK else { throw Self.failure(code, handle.message(for: code)) }
            guard received > 0 else { throw IMAPError(.unreachable, "the server closed the connection") }
            chunk.withUnsafeBytes { reader.feed(UnsafeRawBufferPointer(rebasing: $0[..<received])) }
        }
    }

    /// The next response, reading from the connection as needed; throws `.timeout` after
    /// `idleMilliseconds` without a byte.
    private func nextResponse(idleMilliseconds: Int) throws(IMAPError) -> IMAPResponseReader.Item? {
        var chunk = [UInt8](repeating: 0, count: IMAPLimits.readChunkBytes)
        while true {
            if let item = try reader.next() { return item }
            var received = 0
            let code = chunk.withUnsafeMutableBytes { buffer in curl_easy_recv(handle.raw, buffer.baseAddress, buffer.count, &received) }
            if code == CURLE_AGAIN {
                try wait(for: Int16(POLLIN), milliseconds: idleMilliseconds)
                continue
            }
            guard code == CURLE_OK else { throw Self.failure(code, handle.message(for: code)) }
            guard received > 0 else { throw IMAPError(.unreachable, "the server closed the connection") }
            chunk.withUnsafeBytes { reader.feed(UnsafeRawBufferPointer(rebasing: $0[..<received])) }
        }
    }

    private func wait(for events: Int16, milliseconds: Int) throws(IMAPError) {
        var descriptor = pollfd(fd: socket, events: events, revents: 0)
        while true {
            let ready = poll(&descriptor, 1, Int32(clamping: milliseconds))
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw IMAPError(.unreachable, "poll: " + String(cString: strerror(errno))) }
            if ready == 0 { throw IMAPError(.timeout, "no answer from \(url.host) within \(milliseconds / 1000) s") }
            return
        }
    }

    /// libcurl-errors(3) codes to reasons.
    static func failure(_ code: CURLcode, _ detail: String) -> IMAPError {
        switch code {
        case CURLE_LOGIN_DENIED: IMAPError(.loginRefused, detail)
        case CURLE_USE_SSL_FAILED: IMAPError(.startTLSRefused, detail)
        case CURLE_OPERATION_TIMEDOUT: IMAPError(.timeout, detail)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS:
            IMAPError(.certificateRefused, detail)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_SSL_CONNECT_ERROR:
            IMAPError(.unreachable, detail)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_GOT_NOTHING, CURLE_UNSUPPORTED_PROTOCOL: IMAPError(.protocolViolation, detail)
        default: IMAPError(.unreachable, detail)
        }
    }
}
