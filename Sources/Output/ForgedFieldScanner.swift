import DKIM
import Glibc
import MIME
import ReservoirBase

/// The fields `reservoir filter` leaves out of a message before it adds its own, and where its
/// own go.
public struct ForgedFields: Sendable, Equatable {
    /// Byte ranges to leave out, in order, each one whole field: its first line, its
    /// continuation lines, and their line breaks.
    public var removals: [Range<Int>]
    /// Where the filter's fields go: after an mbox envelope line (``MboxEnvelopeLine``), else 0.
    public var insertionPoint: Int
    /// The header holds at least one field (a name and a colon). Input without one is not a
    /// message, and nothing is added to it.
    public var hasHeaderField: Bool

    public init(removals: [Range<Int>], insertionPoint: Int, hasHeaderField: Bool) {
        self.removals = removals
        self.insertionPoint = insertionPoint
        self.hasHeaderField = hasHeaderField
    }
}

/// Finds, in one pass over the header section, every field a sender may have forged to
/// pass for the filter's own: `Authentication-Results` fields claiming our authserv-id
/// (RFC 8601 §5: "MUST remove … instances … that claim to be from the ADMD"; decided by
/// ``AuthenticationResultsPayload/claims(_:authservID:)``), every `X-Reservation` field and
/// every `X-Reservoir-Error` field (the filter's word that it could not work).
///
/// The header is read as the most lenient downstream reader reads it (Dovecot and Sieve
/// among them): it ends only at an empty line (LF or CRLF alone), however many fields come
/// first; a line without a colon neither ends it nor hides later fields; a line starting with
/// white space continues the field before it; a name may have white space before its colon
/// (RFC 5322 §4.5). A line made of one of the names above without a colon is removed too.
/// There is no limit on the number of fields or on the size of the header.
///
/// A bare CR (one not followed by LF; RFC 5322 §2.2 allows CR only in CRLF) ends a line too,
/// as readers that end lines at CR read it (Python's `email`, with either policy): a field
/// after it is a field of its own, removed like any other, while the header still ends only
/// where an LF reader's does. Removing a field that starts after a bare CR keeps the LF that
/// ends its line, so the kept CR and that LF stay one line end and no field after it joins the
/// line before for an LF reader. An `Authentication-Results` field holding a bare CR is
/// removed to the end of its LF line: readers disagree on its value, and a genuine one never
/// holds one.
///
/// Input comes in pieces of any size; memory holds at most one `Authentication-Results` field
/// (up to ``maxHeldFieldBytes``, beyond which the field is removed undecided) and the first
/// line while it may be an mbox envelope line. Bytes before ``settled`` are decided.
public struct ForgedFieldScanner: Sendable {
    /// Longest `Authentication-Results` value read for the decision; a longer one is removed.
    public static let maxHeldFieldBytes = 65_536

    static let resultsName = Array("authentication-results".utf8)
    static let summaryName = Array("x-reservation".utf8)
    static let errorName = Array("x-reservoir-error".utf8)

    /// `lineCR`: a CR inside a line, whose next byte tells a line end (CRLF) from a bare CR.
    private enum Phase { case lineStart, carriageReturn, name, beforeColon, rest, lineCR, done }
    /// The field (or line without a colon) being read: its fate.
    private enum Unit { case none, pending, kept, removed, held }

    private let ourID: String

    /// Closed removals, in order.
    public private(set) var removals: [Range<Int>] = []
    /// The start of a removal still going on: everything from it to ``settled`` is removed.
    public private(set) var openRemoval: Int?
    /// Bytes seen so far.
    public private(set) var consumed = 0
    public private(set) var insertionPoint = 0
    public private(set) var hasHeaderField = false
    /// The empty line ending the header was seen (or the input ended).
    public var isDone: Bool { phase == .done }

    private var phase = Phase.lineStart
    private var unit = Unit.none
    private var unitStart = 0
    private var lineStart = 0
    /// The current line starts after an LF (or at the start), not after a bare CR.
    private var lineStartsAfterLF = true
    /// The current unit starts after a bare CR, inside an LF reader's line.
    private var unitStartsMidLine = false
    /// The removal going on, or the one just decided, follows a kept bare CR: it keeps the LF
    /// that ends its last line.
    private var removalKeepsLineEnd = false
    /// Bare CRs are bytes of the line until its LF: an `Authentication-Results` field holding
    /// one is being removed to the end of its LF line.
    private var swallowingLine = false
    private var nameLength = 0
    private var spaceBeforeColon = 0
    private var nameIsFieldName = true
    private var matchesResults = true
    private var matchesSummary = true
    private var matchesError = true
    /// The value of the `Authentication-Results` field being read, up to ``maxHeldFieldBytes``.
    private var held: [UInt8] = []
    private var firstLine: [UInt8] = []
    private var envelopeDecided = false

    /// `authservID` as the filter writes it (``AuthenticationResults/writtenID(_:)``).
    public init(authservID: String) {
        ourID = AuthenticationResults.writtenID(authservID)
    }

    /// Every byte before this offset is decided: removed when it lies in a closed removal or
    /// after ``openRemoval``, kept otherwise.
    public var settled: Int {
        guard envelopeDecided else { return 0 }
        if phase == .done { return consumed }
        if unit == .held || unit == .pending { return unitStart }
        if phase == .lineStart || phase == .carriageReturn {
            // The LF before a line may still end a removal that keeps it.
            return unit == .removed && removalKeepsLineEnd && lineStartsAfterLF ? lineStart - 1 : lineStart
        }
        return consumed
    }

    /// What a whole input gives.
    public static func find(in bytes: [UInt8], authservID: String) -> ForgedFields {
        var scanner = ForgedFieldScanner(authservID: authservID)
        bytes.withUnsafeBufferPointer { scanner.scan($0) }
        scanner.finish()
        return scanner.result
    }

    /// The removals and insertion point; complete once ``isDone``.
    public var result: ForgedFields {
        ForgedFields(removals: removals, insertionPoint: insertionPoint, hasHeaderField: hasHeaderField)
    }

    /// Reads the next piece of the input.
    public mutating func scan(_ piece: UnsafeBufferPointer<UInt8>) {
        guard let base = piece.baseAddress else { return }
        let pieceStart = consumed
        var k = 0
        while k < piece.count, phase != .done {
            if phase == .rest, envelopeDecided {
                // The rest of a line matters only for a field being held: jump to its end.
                let rest = UnsafeRawPointer(base + k)
                let lf = memchr(rest, 0x0A, piece.count - k).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) }
                let lineEnd = lf ?? piece.count
                // A CR before the line's end, other than the one of its CRLF, is a bare CR (or,
                // last in the piece, one still to tell).
                if !swallowingLine, let cr = memchr(rest, 0x0D, lineEnd - k).map({ UnsafeRawPointer($0) - UnsafeRawPointer(base) }),
                    cr + 1 < lineEnd || lf == nil
                {
                    if unit == .held { hold(UnsafeBufferPointer(rebasing: piece[k..<(cr + 1)])) }
                    k = cr + 1
                    if k == piece.count {
                        phase = .lineCR
                    } else {
                        bareCR(before: piece[k], at: pieceStart + k)
                        k += 1
                    }
                    continue
                }
                let end = lf.map { $0 + 1 } ?? piece.count
                if unit == .held { hold(UnsafeBufferPointer(rebasing: piece[k..<end])) }
                if lf != nil { lineEnded(at: pieceStart + end - 1) }
                k = end
                continue
            }
            step(piece[k], at: pieceStart + k)
            k += 1
        }
        consumed = pieceStart + piece.count
    }

    /// The input has ended: a field still open ends here.
    public mutating func finish() {
        guard phase != .done else { return }
        if !envelopeDecided { decideEnvelope(lineEnd: nil) }
        if unit == .pending { endNameWithoutColon() }
        // A bare CR at the very end starts a line of its own.
        close(at: phase == .carriageReturn ? lineStart : consumed)
        phase = .done
    }

    private mutating func step(_ b: UInt8, at p: Int) {
        if !envelopeDecided { noteFirstLine(b, at: p) }
        read(b, at: p)
    }

    private mutating func read(_ b: UInt8, at p: Int) {
        switch phase {
        case .lineStart:
            if b == 0x0A {
                // After a bare CR the next byte is never LF; an LF reader's empty line ends the header.
                endHeader(emptyLineAt: p)
                return
            }
            if b == 0x0D {
                phase = .carriageReturn
                return
            }
            if b == 0x20 || b == 0x09 {
                // RFC 5322 §2.2.3: a continuation line; at the top it continues nothing and is a line of its own.
                if unit == .none {
                    unit = .kept
                    unitStart = p
                }
                if unit == .held { held.append(b) }
                phase = .rest
                return
            }
            startUnit(at: p)
            nameByte(b, at: p)
        case .carriageReturn:
            if b == 0x0A {
                if lineStartsAfterLF {
                    endHeader(emptyLineAt: lineStart)
                } else {
                    // CR LF after a bare CR ends an LF reader's line, not its header: the unit goes on.
                    if unit == .held { held += [0x0D, 0x0A] }
                    lineEnded(at: p)
                }
                return
            }
            // A bare CR at the start of a line: an empty line to a reader that ends lines at CR;
            // what follows starts a line.
            startUnit(at: lineStart)
            if lineStartsAfterLF, b != 0x20, b != 0x09, b != 0x0D {
                // A name after it: one unit from the CR, so that removing the field takes the CR
                // too, rather than leave a CR LF that an LF reader would take for the empty line.
                lineStart = p
                lineStartsAfterLF = false
                nameByte(b, at: p)
                return
            }
            // Otherwise the CR is a line of its own, kept.
            unit = .kept
            bareCR(before: b, at: p)
        case .name:
            nameByte(b, at: p)
        case .beforeColon:
            switch b {
            case 0x0D:
                phase = .lineCR
            case 0x20, 0x09:
                // One of our names and white space without end: decided, so nothing is held.
                spaceBeforeColon += 1
                if spaceBeforeColon > Self.maxHeldFieldBytes, unit == .pending {
                    startRemoval()
                    phase = .rest
                }
            case UInt8(ascii: ":"): colon()
            case 0x0A:
                endNameWithoutColon()
                lineEnded(at: p)
            default:
                // `Name text`: not a field, but a lenient reader might take one of our names for one.
                endNameWithoutColon()
                phase = .rest
            }
        case .rest:
            if unit == .held { held.append(b) }
            if b == 0x0A {
                lineEnded(at: p)
            } else if b == 0x0D, !swallowingLine {
                phase = .lineCR
            }
        case .lineCR:
            if b == 0x0A {
                if unit == .held { held.append(b) }
                endNameWithoutColon()
                lineEnded(at: p)
            } else {
                bareCR(before: b, at: p)
            }
        case .done:
            return
        }
    }

    private mutating func nameByte(_ b: UInt8, at p: Int) {
        switch b {
        case UInt8(ascii: ":"):
            colon()
            return
        case 0x0D:
            // CRLF, or a bare CR ending the line: the next byte tells.
            phase = .lineCR
            return
        case 0x20, 0x09:
            // RFC 5322 §4.5: obsolete syntax allows white space before the colon. Only a whole
            // name of ours stays undecided.
            if unit == .pending, !fullyMatchesResults, !fullyMatchesSummary, !fullyMatchesError { unit = .kept }
            phase = .beforeColon
            return
        case 0x0A:
            endNameWithoutColon()
            lineEnded(at: p)
            return
        default:
            break
        }
        let lower = ASCII.lowercased(b)
        matchesResults = matchesResults && nameLength < Self.resultsName.count && Self.resultsName[nameLength] == lower
        matchesSummary = matchesSummary && nameLength < Self.summaryName.count && Self.summaryName[nameLength] == lower
        matchesError = matchesError && nameLength < Self.errorName.count && Self.errorName[nameLength] == lower
        // RFC 5322 §3.6.8: field names are printable US-ASCII.
        nameIsFieldName = nameIsFieldName && b > 0x20 && b < 0x7F
        nameLength += 1
        phase = .name
        if !matchesResults, !matchesSummary, !matchesError {
            unit = .kept
            // Only whether this is a field is left to learn, and only until one was seen.
            if hasHeaderField || !nameIsFieldName { phase = .rest }
        }
    }

    private var fullyMatchesResults: Bool { matchesResults && nameLength == Self.resultsName.count }
    private var fullyMatchesSummary: Bool { matchesSummary && nameLength == Self.summaryName.count }
    private var fullyMatchesError: Bool { matchesError && nameLength == Self.errorName.count }

    private mutating func colon() {
        if nameLength > 0, nameIsFieldName { hasHeaderField = true }
        if fullyMatchesSummary || fullyMatchesError {
            startRemoval()
        } else if fullyMatchesResults {
            unit = .held
            held.removeAll(keepingCapacity: true)
        } else {
            unit = .kept
        }
        phase = .rest
    }

    /// The name ended without a colon: a line that is one of our names is removed.
    private mutating func endNameWithoutColon() {
        guard unit == .pending else { return }
        if fullyMatchesResults || fullyMatchesSummary || fullyMatchesError {
            startRemoval()
        } else {
            unit = .kept
        }
    }

    private mutating func lineEnded(at lf: Int) {
        lineStart = lf + 1
        lineStartsAfterLF = true
        swallowingLine = false
        phase = .lineStart
    }

    /// The CR before `b` (at `p`) is bare: the line ends at it for a reader that ends lines at
    /// CR, and `b` starts the next one. A name read so far ends without a colon; an
    /// `Authentication-Results` field being held is removed to the end of its LF line.
    private mutating func bareCR(before b: UInt8, at p: Int) {
        endNameWithoutColon()
        if unit == .held {
            startRemoval()
            held.removeAll()
            swallowingLine = true
            phase = .rest
            read(b, at: p)
            return
        }
        lineStart = p
        lineStartsAfterLF = false
        phase = .lineStart
        read(b, at: p)
    }

    /// The unit being read is removed, from its start until it ends.
    private mutating func startRemoval() {
        unit = .removed
        openRemoval = unitStart
        removalKeepsLineEnd = keepsLineEnd(unitStart)
    }

    /// Whether a removal from `start` follows a kept bare CR: it starts after one, and no
    /// removal ends there (an earlier one that took the CR passes the rule on).
    private func keepsLineEnd(_ start: Int) -> Bool {
        if let last = removals.last, last.upperBound == start { return lastRemovalKeepsLineEnd }
        return unitStartsMidLine
    }

    /// ``removalKeepsLineEnd`` of the last closed removal.
    private var lastRemovalKeepsLineEnd = false

    /// Closes a removal of `start..<end`; one that keeps its line end stops before an LF that ends it.
    private mutating func appendRemoval(_ start: Int, _ end: Int, keepsLineEnd: Bool) {
        let stop = keepsLineEnd && end == lineStart && lineStartsAfterLF && end - 1 > start ? end - 1 : end
        removals.append(start..<stop)
        lastRemovalKeepsLineEnd = keepsLineEnd
    }

    private mutating func startUnit(at p: Int) {
        close(at: p)
        unit = .pending
        unitStart = p
        unitStartsMidLine = !lineStartsAfterLF
        nameLength = 0
        spaceBeforeColon = 0
        nameIsFieldName = true
        matchesResults = true
        matchesSummary = true
        matchesError = true
    }

    /// The field being read ends before `end`: decide it.
    private mutating func close(at end: Int) {
        switch unit {
        case .removed:
            appendRemoval(openRemoval ?? unitStart, end, keepsLineEnd: removalKeepsLineEnd)
            openRemoval = nil
        case .held:
            if AuthenticationResultsPayload.claims(held, authservID: ourID) {
                appendRemoval(unitStart, end, keepsLineEnd: keepsLineEnd(unitStart))
            }
            held.removeAll(keepingCapacity: true)
        case .none, .pending, .kept:
            break
        }
        unit = .none
    }

    private mutating func endHeader(emptyLineAt start: Int) {
        close(at: start)
        phase = .done
    }

    private mutating func hold(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard held.count + bytes.count <= Self.maxHeldFieldBytes else {
            // Too long to decide: removed (a server's field is a few hundred bytes).
            startRemoval()
            held.removeAll()
            return
        }
        held.append(contentsOf: bytes)
    }

    private mutating func noteFirstLine(_ b: UInt8, at p: Int) {
        firstLine.append(b)
        let prefix = "From ".utf8
        if firstLine.count <= prefix.count, !prefix.starts(with: firstLine) {
            decideEnvelope(lineEnd: nil)
        } else if b == 0x0A {
            decideEnvelope(lineEnd: p)
        } else if firstLine.count > MboxEnvelopeLine.maxLength {
            decideEnvelope(lineEnd: nil)
        }
    }

    private mutating func decideEnvelope(lineEnd: Int?) {
        if let lineEnd, MboxEnvelopeLine.matches(firstLine.dropLast()) { insertionPoint = lineEnd + 1 }
        envelopeDecided = true
        firstLine = []
    }
}

/// A message streamed through with the fields ``ForgedFieldScanner`` finds left out, for the
/// paths that cannot hold or re-read the message. Holds back only what the scanner has not
/// decided yet.
public struct ForgedFieldStream: Sendable {
    public private(set) var scanner: ForgedFieldScanner
    /// Undecided bytes from ``carryStart``.
    private var carry: [UInt8] = []
    private var carryStart = 0
    private var nextRemoval = 0

    public init(authservID: String) {
        scanner = ForgedFieldScanner(authservID: authservID)
    }

    /// Reads the next piece and hands every byte now known to be kept to `emit`, in order;
    /// false as soon as `emit` returns false.
    public mutating func push(_ piece: UnsafeBufferPointer<UInt8>, emit: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        scanner.scan(piece)
        guard !carry.isEmpty else {
            guard let used = drain(piece, emit: emit) else { return false }
            if used < piece.count { carry = Array(piece[used...]) }
            return true
        }
        // Appending keeps a field fed a byte at a time linear; the carry is copied only when
        // part of it is decided.
        var data = carry
        carry = []
        data.append(contentsOf: piece)
        guard let used = data.withUnsafeBufferPointer({ drain($0, emit: emit) }) else { return false }
        carry = used == 0 ? data : Array(data[used...])
        return true
    }

    /// The input has ended: hands over the rest.
    public mutating func finish(emit: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        scanner.finish()
        let data = carry
        carry = []
        return data.withUnsafeBufferPointer { drain($0, emit: emit) } != nil
    }

    /// `data` holds the input from ``carryStart`` to what the scanner consumed: the kept bytes
    /// before ``ForgedFieldScanner/settled`` go out. Returns how many bytes of `data` are done
    /// with (the rest is carried), or nil when `emit` failed.
    private mutating func drain(_ data: UnsafeBufferPointer<UInt8>, emit: (UnsafeBufferPointer<UInt8>) -> Bool) -> Int? {
        let base = carryStart
        let end = scanner.settled
        var from = base
        func send(_ range: Range<Int>) -> Bool {
            range.isEmpty || emit(UnsafeBufferPointer(rebasing: data[(range.lowerBound - base)..<(range.upperBound - base)]))
        }
        let removals = scanner.removals
        while nextRemoval < removals.count, removals[nextRemoval].lowerBound < end {
            let removal = removals[nextRemoval]
            guard send(from..<max(from, removal.lowerBound)) else { return nil }
            from = max(from, removal.upperBound)
            nextRemoval += 1
        }
        if let open = scanner.openRemoval, open < end {
            guard send(from..<max(from, open)) else { return nil }
            from = end
        }
        guard send(from..<max(from, end)) else { return nil }
        carryStart = end
        return end - base
    }
}
