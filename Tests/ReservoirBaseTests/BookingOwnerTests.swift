import ReservoirBase
import Testing

@Suite("Booking owners and their stored text")
struct BookingOwnerTests {
    static let owners: [(BookingOwner, String)] = [
        (.domain("epicsteak.example"), "epicsteak.example"),
        (.domain("xn--zrich-kva.example"), "xn--zrich-kva.example"),
        (.walletPass(passType: "pass.com.example.boarding"), "pass:pass.com.example.boarding"),
        (.railway(rics: "1080"), "rail:1080"),
        (.unproven, ""),
    ]

    @Test("each owner is written as today's text and read back as itself", arguments: owners)
    func roundTrip(owner: BookingOwner, text: String) {
        #expect(owner.storedText == text)
        #expect(BookingOwner(storedText: text) == owner)
    }

    /// A domain has no colon: no domain text reads as a pass type or a railway, and the texts
    /// of those never read as a domain.
    @Test(
        "a domain never reads as a pass type or a railway, nor they as a domain",
        arguments: ["pass.com.example", "rail.example", "pass", "rail", "1080", "passes.example", "railway.example"])
    func domainsStayDomains(domain: String) {
        #expect(BookingOwner(storedText: domain) == .domain(domain))
        let pass = BookingOwner(storedText: "pass:" + domain)
        let rail = BookingOwner(storedText: "rail:" + domain)
        #expect(pass == .walletPass(passType: domain) && pass?.domain == nil)
        #expect(rail == .railway(rics: domain) && rail?.domain == nil)
    }

    @Test(
        "a text that names no owner is refused, not read as a domain",
        arguments: ["pass:", "rail:", "page:epicsteak.example", "arc:mx.example", ":", "x:y"])
    func unreadable(text: String) {
        #expect(BookingOwner(storedText: text) == nil)
    }

    @Test("owners order as their stored texts")
    func order() {
        let sorted = Self.owners.map(\.0).sorted()
        #expect(sorted.map(\.storedText) == Self.owners.map(\.1).sorted())
        #expect(!BookingOwner.unproven.isProven && BookingOwner.railway(rics: "1080").isProven)
    }
}
