import EventStore
import ReservoirBase

extension FeedService {
    /// A form's post (`--actions`): checked as a request another site could have made a
    /// browser send, then run for the account the access decided.
    ///
    /// Cross-site request forgery is refused twice over: the browser's own word on where the
    /// form came from (`Sec-Fetch-Site`, and `Origin`, which every current browser sends with a
    /// POST: RFC 6454 §7.3) must be this page's origin, and the form must carry the token only
    /// this server's page holds (``PageActions/token(for:)``). A token in the path is no defence
    /// on its own against a site that learnt the address; Basic credentials a browser sends by
    /// itself are none at all.
    func act(_ name: String, actions: PageActions, request: FeedRequest, account: Account?, pagePath: String) -> FeedResponse {
        guard request.method == "POST" else {
            var response = Self.text(405, "Only POST.\n", method: request.method)
            response.headers.append(("Allow", "POST"))
            return response
        }
        let scheme = request.forwardedProto?.lowercased() == "https" ? "https" : "http"
        guard let origin = request.origin?.lowercased(), let host = request.host?.lowercased(), origin == scheme + "://" + host,
            request.fetchSite.map({ $0.lowercased() == "same-origin" }) ?? true
        else {
            return Self.text(403, "Refused: the form was not sent from this page.\n", method: request.method)
        }
        let mediaType = request.contentType?.split(separator: ";").first.map { $0.trimmingASCII().lowercased() }
        guard mediaType == "application/x-www-form-urlencoded", let fields = FormBody.read(request.body) else {
            return Self.text(400, "The form could not be read.\n", method: request.method)
        }
        guard let offered = fields["token"], ConstantTime.equal(Array(offered.utf8), Array(actions.token(for: account).utf8)) else {
            return Self.text(403, "Refused: the form is not this page's (reload the page and try again).\n", method: request.method)
        }
        let action: PageAction
        switch name {
        case "add":
            // Only https vouches for a page; the server fetches nothing else for anyone.
            guard let url = fields["url"].map({ $0.trimmingASCII() }), url.lowercased().hasPrefix("https://"), url.utf8.count <= 2048,
                !url.utf8.contains(where: { $0 < 0x21 || $0 == 0x7f })
            else {
                return Self.text(400, "Give the page's https:// address.\n", method: request.method)
            }
            action = .add(url: url)
        default:
            // Only a domain the account has pending can be decided here: a form cannot make the
            // server trust any other.
            guard let domain = fields["domain"], pendingDomains(account).contains(domain) else {
                return Self.text(400, "That sender has nothing waiting.\n", method: request.method)
            }
            action = name == "allow" ? .allow(domain: domain) : .deny(domain: domain)
        }
        guard let result = actions.run(action, account) else {
            var response = Self.text(429, "Another change is being made; try again in a moment.\n", method: request.method)
            response.headers.append(("Retry-After", "5"))
            return response
        }
        let body = Array(ActionResultPage(result: result, back: pagePath).render().utf8)
        return FeedResponse(
            status: result.succeeded ? 200 : 422,
            headers: [
                ("Content-Type", "text/html; charset=utf-8"), ("Content-Length", String(body.count)),
                ("Content-Security-Policy", Self.pagePolicy), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
                ("Cache-Control", "no-store"),
            ], body: body)
    }

    /// The domains an account has reservations pending from, within ``pendingDays``.
    func pendingDomains(_ account: Account?) -> Set<String> {
        guard let store = try? openStore(account), let senders = store.senders,
            let pending = try? senders.pendingReservations(receivedSince: clock.now() - Int64(pendingDays) * 86_400)
        else { return [] }
        return Set(pending.map(\.domain))
    }
}

/// The answer to a form: what was done, and the way back to the page.
struct ActionResultPage {
    let result: PageActionResult
    let back: String

    func render() -> String {
        let page: HTMLText = """
            \(UpcomingPage.head(title: result.succeeded ? "Done" : "Not done", referrer: "no-referrer", style: ".result{white-space:pre-line}"))
            <body>
            <h1>\(result.succeeded ? "Done" : "Not done")</h1>
            <article><p class="result">\(result.summary)</p></article>
            <p><a class="button" href="\(back)">Back to the reservations</a></p>
            </body>
            </html>

            """
        return page.html
    }
}
