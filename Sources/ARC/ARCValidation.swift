public import DKIM
public import MIME
import ReservoirBase

/// Bounds on the ARC fields read (RFC 8617 §4.2.1 caps a chain at 50 instances).
public enum ARCLimits {
    /// Most instances in a chain; a message with more fails (RFC 8617 §4.2.1, §5.2 step 3).
    public static let maxInstances = 50
    /// Longest ARC field value read; a longer one fails the chain.
    public static let maxFieldBytes = 16_384
    /// Most ARC fields read; past it the chain fails (three per instance).
    public static let maxFields = 3 * maxInstances
}

/// The chain validation status (RFC 8617 §4.4).
public enum ARCResult: String, Sendable {
    case none, pass, fail
}

/// One ARC set as the chain holds it: who sealed it, what it says of the chain before it, and
/// the authentication results the sealer recorded.
public struct ARCInstance: Sendable, Equatable {
    /// `i=`, from 1.
    public var instance: Int
    /// The ARC-Seal's `d=`, lowercased: the sealer.
    public var sealer: String
    /// The ARC-Seal's `cv=`, lowercased (`none`, `pass`, `fail`).
    public var chainValidation: String
    /// The ARC-Authentication-Results after its `i=`; nil when it does not read.
    public var results: AuthenticationResultsPayload?
}

/// The outcome of RFC 8617 §5.2 on one message: `none` without ARC fields, `pass` for a chain
/// whose structure, latest ARC-Message-Signature and every ARC-Seal verify, else `fail` with
/// the first reason found.
public struct ARCValidation: Sendable {
    /// Why a chain fails: a stable name for programs.
    public enum Code: String, Sendable, CaseIterable {
        /// More instances or ARC fields than ``ARCLimits`` allow.
        case tooManyInstances = "too-many-instances"
        /// An ARC field value longer than ``ARCLimits/maxFieldBytes``.
        case fieldTooLong = "field-too-long"
        /// An ARC field without a readable `i=` from 1 to ``ARCLimits/maxInstances``.
        case malformedField = "malformed-field"
        /// An instance lacks one of its three fields, or an instance number is skipped.
        case missingField = "missing-field"
        /// An instance has two fields of the same name.
        case duplicateField = "duplicate-field"
        /// The latest ARC-Seal says `cv=fail`: a sealer found the chain broken.
        case chainFailed = "chain-failed"
        /// `cv=` is not `none` on instance 1, or not `pass` on a later one.
        case wrongChainValue = "wrong-chain-value"
        /// The latest ARC-Message-Signature does not verify.
        case messageSignatureFailed = "message-signature-failed"
        /// An ARC-Seal does not verify.
        case sealFailed = "seal-failed"
    }

    public var result: ARCResult
    public var code: Code?
    public var reason: String
    /// The instances in order (instance 1 first); empty unless the structure held.
    public var instances: [ARCInstance]
    /// The latest instance's ARC-Message-Signature as verified; nil unless the chain passed.
    public var latestMessageSignature: DKIMVerification?

    public init(
        result: ARCResult, code: Code? = nil, reason: String = "", instances: [ARCInstance] = [],
        latestMessageSignature: DKIMVerification? = nil
    ) {
        self.result = result
        self.code = code
        self.reason = reason
        self.instances = instances
        self.latestMessageSignature = latestMessageSignature
    }

    static func fail(_ code: Code, _ reason: String, instances: [ARCInstance] = []) -> ARCValidation {
        ARCValidation(result: .fail, code: code, reason: reason, instances: instances)
    }
}

/// Validates a message's ARC chain (RFC 8617 §5.2).
public enum ARCValidator {
    static let sealName = "ARC-Seal"
    static let messageSignatureName = "ARC-Message-Signature"
    static let resultsName = "ARC-Authentication-Results"

    /// Whether the message has any ARC field: without one the result is `none` and nothing is read.
    public static func hasARCFields(_ message: Message) -> Bool {
        message.header.fields.contains { $0.hasName(sealName) || $0.hasName(messageSignatureName) || $0.hasName(resultsName) }
    }

    /// The fields of each instance, as indices into the header.
    struct SetFields {
        var results: Int?
        var messageSignature: Int?
        var seal: Int?
    }

    /// RFC 8617 §5.2: collect the sets (steps 1–3), check the latest `cv=` (step 2), the
    /// structure (step 3), the latest ARC-Message-Signature (step 5), then every ARC-Seal from
    /// the latest down (step 6).
    public static func validate(_ message: Message, verifier: DKIMVerifier) -> ARCValidation {
        let fields = message.header.fields
        let bytes = message.bytes
        var sets: [Int: SetFields] = [:]
        var count = 0
        for (index, field) in fields.enumerated() {
            let kind: Int
            if field.hasName(sealName) {
                kind = 0
            } else if field.hasName(messageSignatureName) {
                kind = 1
            } else if field.hasName(resultsName) {
                kind = 2
            } else {
                continue
            }
            count += 1
            guard count <= ARCLimits.maxFields else {
                return .fail(.tooManyInstances, "more than \(ARCLimits.maxFields) ARC fields")
            }
            guard field.valueRange.count <= ARCLimits.maxFieldBytes else {
                return .fail(.fieldTooLong, "an ARC field is longer than \(ARCLimits.maxFieldBytes) bytes")
            }
            guard let instance = kind == 2 ? resultsInstance(bytes[field.valueRange]).map(\.instance) : tagInstance(bytes, field) else {
                return .fail(.malformedField, "an ARC field has no valid i= (1 to \(ARCLimits.maxInstances))")
            }
            var set = sets[instance] ?? SetFields()
            switch kind {
            case 0:
                guard set.seal == nil else { return .fail(.duplicateField, "instance \(instance) has two ARC-Seal fields") }
                set.seal = index
            case 1:
                guard set.messageSignature == nil else {
                    return .fail(.duplicateField, "instance \(instance) has two ARC-Message-Signature fields")
                }
                set.messageSignature = index
            default:
                guard set.results == nil else {
                    return .fail(.duplicateField, "instance \(instance) has two ARC-Authentication-Results fields")
                }
                set.results = index
            }
            sets[instance] = set
        }
        guard !sets.isEmpty else { return ARCValidation(result: .none) }
        let latest = sets.keys.max() ?? 0
        // Step 3: instances 1 to N, each with its three fields.
        var ordered: [(seal: Int, messageSignature: Int, results: Int)] = []
        for instance in 1...latest {
            guard let set = sets[instance], let seal = set.seal, let ams = set.messageSignature, let aar = set.results else {
                return .fail(.missingField, "instance \(instance) of \(latest) is missing or incomplete")
            }
            ordered.append((seal, ams, aar))
        }
        var instances: [ARCInstance] = []
        for (offset, set) in ordered.enumerated() {
            let tags = try? TagList(bytes, in: fields[set.seal].valueRange)
            let results = resultsInstance(bytes[fields[set.results].valueRange])?.payload
            instances.append(
                ARCInstance(
                    instance: offset + 1, sealer: TagList.withoutWhitespace(tags?["d"] ?? "").lowercased(),
                    chainValidation: TagList.withoutWhitespace(tags?["cv"] ?? "").lowercased(), results: results))
        }
        // Step 2: a sealer that found the chain broken ends it.
        if instances[latest - 1].chainValidation == "fail" {
            return .fail(.chainFailed, "the latest ARC-Seal (i=\(latest)) says cv=fail", instances: instances)
        }
        for item in instances {
            let expected = item.instance == 1 ? "none" : "pass"
            guard item.chainValidation == expected else {
                return .fail(
                    .wrongChainValue, "ARC-Seal i=\(item.instance) says cv=\(item.chainValidation), not cv=\(expected)",
                    instances: instances)
            }
        }
        // Step 5: the latest ARC-Message-Signature, as a DKIM signature.
        let messageSignature = verifier.verifyARCMessageSignature(message, fieldIndex: ordered[latest - 1].messageSignature)
        guard messageSignature.result == .pass else {
            return .fail(
                .messageSignatureFailed,
                "the ARC-Message-Signature of i=\(latest) by \(messageSignature.domain): \(messageSignature.result.rawValue) (\(messageSignature.reason))",
                instances: instances)
        }
        // Step 6: every seal, over the sets up to its own.
        for instance in stride(from: latest, through: 1, by: -1) {
            var sealed: [Int] = []
            for earlier in 1...instance {
                let set = ordered[earlier - 1]
                sealed += [set.results, set.messageSignature]
                if earlier < instance { sealed.append(set.seal) }
            }
            let seal = verifier.verifyARCSeal(message, fieldIndex: ordered[instance - 1].seal, sealedFields: sealed)
            guard seal.result == .pass else {
                return .fail(
                    .sealFailed, "the ARC-Seal of i=\(instance) by \(seal.domain): \(seal.result.rawValue) (\(seal.reason))",
                    instances: instances)
            }
        }
        return ARCValidation(result: .pass, instances: instances, latestMessageSignature: messageSignature)
    }

    /// The `i=` of an ARC-Seal or ARC-Message-Signature.
    static func tagInstance(_ bytes: [UInt8], _ field: HeaderField) -> Int? {
        guard let tags = try? TagList(bytes, in: field.valueRange), let value = tags["i"] else { return nil }
        return instanceNumber(Array(TagList.withoutWhitespace(value).utf8)[...])
    }

    /// An instance number: 1 to ``ARCLimits/maxInstances``, decimal digits only.
    static func instanceNumber(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(ASCII.isDigit) else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return (1...ARCLimits.maxInstances).contains(value) ? value : nil
    }

    /// An ARC-Authentication-Results value (RFC 8617 §4.1.1: `i=` instance `;` then an
    /// `authres-payload`): the instance, and the payload when it reads.
    static func resultsInstance(_ value: ArraySlice<UInt8>) -> (instance: Int, payload: AuthenticationResultsPayload?)? {
        var i = value.startIndex
        func skipSpace() { while i < value.endIndex, [0x20, 0x09, 0x0D, 0x0A].contains(value[i]) { i += 1 } }
        skipSpace()
        guard i < value.endIndex, value[i] | 0x20 == UInt8(ascii: "i") else { return nil }
        i += 1
        skipSpace()
        guard i < value.endIndex, value[i] == UInt8(ascii: "=") else { return nil }
        i += 1
        skipSpace()
        let start = i
        while i < value.endIndex, ASCII.isDigit(value[i]) { i += 1 }
        guard let instance = instanceNumber(value[start..<i]) else { return nil }
        skipSpace()
        guard i < value.endIndex, value[i] == UInt8(ascii: ";") else { return nil }
        i += 1
        let payload = try? AuthenticationResultsPayload.parse(value[i...]).get()
        return (instance, payload)
    }
}
