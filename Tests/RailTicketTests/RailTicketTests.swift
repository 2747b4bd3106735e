import RailTicket
import Testing

@Suite struct Placeholder { @Test func x() { #expect(RailTicket.looksLikeRailTicket(Array("#UT01".utf8))) } }
