import ReservoirBase

/// Whether the key that verified a ticket may vouch for it: the UIC key list bounds each key by
/// a validity (`startDate`, `endDate`) and the product owners it may sign for
/// (`allowedProductOwnerCodes`). A railway retires a key by ending its validity, leaked keys
/// first, so a signature that verifies proves the railway's word only for tickets issued while
/// the key was in service.
public enum RailKeyUse: Sendable, Equatable {
    /// The key vouches for the ticket.
    case allowed
    /// The ticket's signed issuing time is outside the key's validity, after `now`, or absent.
    case notValid(RailKeyValidityFailure)
    /// A product of the ticket belongs to an owner (RICS code) the key may not sign for;
    /// nil when the ticket names no owner at all.
    case notForOwner(Int?)
}

/// Why a key's validity does not cover a ticket (``RailKeyUse/notValid(_:)``).
public enum RailKeyValidityFailure: String, Sendable, Equatable, CaseIterable {
    /// Issued before the key's `startDate`.
    case beforeStart = "issued-before-key"
    /// Issued after the key's `endDate`: a retired key.
    case afterEnd = "issued-after-key"
    /// Issued more than ``RailLimits/issuingClockSkewSeconds`` after the clock.
    case issuedInFuture = "issued-in-future"
    /// The ticket carries no issuing time (no `U_HEAD`, no FCB), and the key is bounded.
    case noIssuingTime = "no-issuing-time"
}

extension RailTicketContent {
    /// The ticket's signed issuing times as Unix seconds: `U_HEAD`'s (`DDMMYYYYHHMM`, UTC by UIC
    /// 918.3 annex A.2) and the FCB's (`issuingYear`, `issuingDay`, `issuingTime`, UTC).
    public var issuingTimes: [Int64] {
        var times: [Int64] = []
        if let head, (1...CivilTime.daysIn(month: head.month, year: head.year)).contains(head.day) {
            times.append(
                CivilTime.daysFromCivil(year: head.year, month: head.month, day: head.day) * 86_400 + Int64(head.hour * 3600 + head.minute * 60))
        }
        if let fcb {
            let first = CivilTime.daysFromCivil(year: fcb.issuingYear, month: 1, day: 1)
            times.append((first + Int64(fcb.issuingDay - 1)) * 86_400 + Int64((fcb.issuingTime ?? 0) * 60))
        }
        return times
    }

    /// The product owners the ticket names: each FCB document's `productOwnerNum`, else the FCB
    /// issuer's, else the `U_HEAD` issuer's code (a ticket without an FCB is the issuer's own).
    public var productOwners: [Int?] {
        guard let fcb else { return [head.flatMap { Int($0.issuerCode) }] }
        let issuer = fcb.issuerNumber ?? head.flatMap { Int($0.issuerCode) }
        let owners: [Int?] = fcb.documents.compactMap { document -> Int?? in
            let owner: Int?
            switch document {
            case .reservation(let reservation): owner = reservation.productOwner
            case .openTicket(let ticket): owner = ticket.productOwner
            case .pass(let pass): owner = pass.productOwner
            case .other: return nil
            }
            // A document without its own owner is the issuer's product.
            return .some(owner ?? issuer)
        }
        return owners.isEmpty ? [issuer] : owners
    }
}

extension RailKey {
    /// Whether this key vouches for `ticket` at the clock's `now`: every signed issuing time
    /// lies within the key's validity and is not after `now` (give or take
    /// ``RailLimits/issuingClockSkewSeconds``), and, when the key lists product owners, every
    /// product of the ticket is one of theirs.
    public func use(for ticket: RailTicketContent, now: Int64) -> RailKeyUse {
        let times = ticket.issuingTimes
        if times.isEmpty, validFrom != nil || validUntil != nil { return .notValid(.noIssuingTime) }
        for time in times {
            if time > now + RailLimits.issuingClockSkewSeconds { return .notValid(.issuedInFuture) }
            if let validFrom, time < validFrom - RailLimits.issuingClockSkewSeconds { return .notValid(.beforeStart) }
            if let validUntil, time >= validUntil + RailLimits.issuingClockSkewSeconds { return .notValid(.afterEnd) }
        }
        if !productOwners.isEmpty {
            for owner in ticket.productOwners where owner.map({ !productOwners.contains($0) }) ?? true {
                return .notForOwner(owner)
            }
        }
        return .allowed
    }
}
