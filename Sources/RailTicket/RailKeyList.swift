internal import CLibXML2
internal import COpenSSL
import ReservoirBase

/// One public key of a railway, from the UIC's key list.
public struct RailKey: Sendable, Equatable {
    /// The railway's RICS code (`issuerCode`) and the key's id (`id`), as numbers: the bar code
    /// writes them zero-padded (`1080`, `00001`), the list without padding.
    public var issuerCode: Int
    public var keyID: Int
    public var issuerName: String?
    public var signatureAlgorithm: String?
    public var barcodeVersion: String?
    /// The public key as DER: an X.509 certificate or a SubjectPublicKeyInfo.
    public var publicKey: [UInt8]
    /// The key's validity (`startDate`, `endDate`) as Unix seconds: from the start day's
    /// beginning, up to but excluding the day after the end day (UTC). Nil: not bounded.
    public var validFrom: Int64?
    public var validUntil: Int64?
    /// The product owners (RICS codes) whose tickets the key may sign
    /// (`allowedProductOwnerCodes`); empty: the list does not restrict it.
    public var productOwners: [Int]

    public init(
        issuerCode: Int, keyID: Int, issuerName: String? = nil, signatureAlgorithm: String? = nil, barcodeVersion: String? = nil,
        publicKey: [UInt8], validFrom: Int64? = nil, validUntil: Int64? = nil, productOwners: [Int] = []
    ) {
        self.issuerCode = issuerCode
        self.keyID = keyID
        self.issuerName = issuerName
        self.signatureAlgorithm = signatureAlgorithm
        self.barcodeVersion = barcodeVersion
        self.publicKey = publicKey
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.productOwners = productOwners
    }
}

/// Why a key list does not read.
public enum RailKeyListError: Error, Equatable, Sendable {
    case unreadable(String)
    case tooLarge
    case notAKeyList
}

/// The UIC's list of the railways' bar code keys (the XML file it publishes: `keys` with one
/// `key` per railway key, each with `issuerName`, `issuerCode`, `id`, `signatureAlgorithm`,
/// `publicKey` in base64, `barcodeVersion`, `startDate` and `endDate` (`xs:date`), and
/// `allowedProductOwnerCodes` holding `productOwnerCode` elements). The user downloads it;
/// Reservoir never fetches it.
/// Parsed by libxml2 without network access, DTDs or entity substitution.
public struct RailKeyList: Sendable {
    public private(set) var keys: [RailKey] = []

    public init(keys: [RailKey]) { self.keys = keys }

    public init(path: String) throws(RailKeyListError) {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: RailLimits.maxKeyListBytes)
        } catch {
            throw .unreadable("\(error)")
        }
        try self.init(xml: bytes)
    }

    public init(xml: [UInt8]) throws(RailKeyListError) {
        guard xml.count <= RailLimits.maxKeyListBytes else { throw .tooLarge }
        // XML_PARSE_NONET: no network; without XML_PARSE_NOENT and XML_PARSE_DTDLOAD no
        // external entity or DTD is loaded (an XXE attack on the file is inert).
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let parsed: xmlDocPtr? = xml.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                xmlReadMemory(chars.baseAddress, Int32(chars.count), "keys.xml", nil, options)
            }
        }
        guard let document = parsed else { throw .unreadable("not well-formed XML") }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document), Self.name(root) == "keys" else { throw .notAKeyList }
        var keys: [RailKey] = []
        var child = root.pointee.children
        while let node = child {
            child = node.pointee.next
            guard node.pointee.type == XML_ELEMENT_NODE, Self.name(node) == "key" else { continue }
            guard keys.count < RailLimits.maxKeys else { break }
            var values: [String: String] = [:]
            var owners: [String] = []
            var field = node.pointee.children
            while let element = field {
                field = element.pointee.next
                guard element.pointee.type == XML_ELEMENT_NODE else { continue }
                values[Self.name(element)] = Self.text(element)
                if Self.name(element) == "allowedProductOwnerCodes" { owners += Self.children(element, named: "productOwnerCode") }
            }
            // A key the UIC marks as forged (`keyForged`) vouches for nothing: it is not loaded, so
            // a ticket signed with it is `unknown-key`, left to the mail's DKIM.
            if values["keyForged"]?.lowercased() == "true" { continue }
            guard let issuer = values["issuerCode"].flatMap({ Int($0) }), let id = values["id"].flatMap({ Int($0) }),
                let key = values["publicKey"].flatMap(Self.base64), !key.isEmpty
            else { continue }
            // A validity or an owner list that does not read bounds the key in no known way: the
            // key is not loaded (its tickets are `unknown-key`) rather than taken as unbounded.
            guard let start = Self.day(values["startDate"]), let end = Self.day(values["endDate"]) else { continue }
            let productOwners = owners.map { Int($0) }
            guard productOwners.allSatisfy({ $0 != nil }) else { continue }
            keys.append(
                RailKey(
                    issuerCode: issuer, keyID: id, issuerName: values["issuerName"], signatureAlgorithm: values["signatureAlgorithm"],
                    barcodeVersion: values["barcodeVersion"], publicKey: key, validFrom: start.map { $0 * 86_400 },
                    validUntil: end.map { ($0 + 1) * 86_400 }, productOwners: productOwners.compactMap { $0 }))
        }
        self.keys = keys
    }

    /// The key of railway `signer` with id `keyID` (compared as numbers), if listed.
    public func key(signer: String, keyID: String) -> RailKey? {
        guard let issuer = Int(signer), let id = Int(keyID) else { return nil }
        return keys.first { $0.issuerCode == issuer && $0.keyID == id }
    }

    /// Verifies a container's signature over its compressed data (UIC 918.3 annex A.1).
    func verify(signer: String, keyID: String, signature: [UInt8], data: [UInt8]) -> RailSignatureOutcome {
        guard let key = key(signer: signer, keyID: keyID) else { return .unknownKey }
        return RailSignatureVerifier.verify(key: key.publicKey, signature: signature, data: data)
            ? .verified(issuer: signer, name: key.issuerName, keyID: keyID) : .invalid
    }

    /// An `xs:date` (`2025-01-01`, perhaps with a zone such as `Z` or `+01:00`, which is
    /// ignored: the rule allows a day either way) as days since 1970: `.some(nil)` for an absent
    /// or empty element, nil for one that does not read.
    static func day(_ text: String?) -> Int64?? {
        guard let text, !text.isEmpty else { return .some(nil) }
        let digits = Array(text.utf8)
        guard digits.count >= 10, digits[4] == 0x2D, digits[7] == 0x2D,
            let year = Int(String(decoding: digits[0..<4], as: UTF8.self)), let month = Int(String(decoding: digits[5..<7], as: UTF8.self)),
            let day = Int(String(decoding: digits[8..<10], as: UTF8.self)), (1...12).contains(month),
            (1...CivilTime.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let zone = digits[10...]
        guard zone.isEmpty || zone.elementsEqual("Z".utf8) || (zone.count == 6 && (zone.first == 0x2B || zone.first == 0x2D)) else { return nil }
        return .some(CivilTime.daysFromCivil(year: year, month: month, day: day))
    }

    /// The texts of `node`'s child elements named `name`.
    private static func children(_ node: xmlNodePtr, named name: String) -> [String] {
        var out: [String] = []
        var child = node.pointee.children
        while let element = child {
            child = element.pointee.next
            if element.pointee.type == XML_ELEMENT_NODE, Self.name(element) == name { out.append(Self.text(element)) }
        }
        return out
    }

    private static func name(_ node: xmlNodePtr) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    private static func text(_ node: xmlNodePtr) -> String {
        var out = ""
        var child = node.pointee.children
        while let text = child {
            child = text.pointee.next
            if text.pointee.type == XML_TEXT_NODE || text.pointee.type == XML_CDATA_SECTION_NODE, let content = text.pointee.content {
                out += String(cString: content)
            }
        }
        return out.trimmingASCII(ASCII.isSpaceOrLineBreak)
    }

    /// Base64 (RFC 4648 section 4) with XML white space ignored (XSD `base64Binary`); nil on
    /// any other stray character.
    static func base64(_ text: String) -> [UInt8]? {
        Base64Text.decode(text.utf8.filter { !ASCII.isSpaceOrLineBreak($0) }, padding: .optional)
    }
}

/// DSA and ECDSA verification through OpenSSL's EVP interface.
enum RailSignatureVerifier {
    static let ready: Bool = reservoir_openssl_init() == 1

    /// Whether `signature` (the container's field: DER padded with zeros, or r‖s halves in
    /// version 2) verifies over `data` with the key `der`. The digest follows the key: SHA-1
    /// for DSA with a 160-bit q (version 1), SHA-224 or SHA-256 for 224- and 256-bit q, SHA-256
    /// for ECDSA P-256 (UIC 918.3 annex A.1 and the key list's `signatureAlgorithm`).
    static func verify(key der: [UInt8], signature: [UInt8], data: [UInt8]) -> Bool {
        guard ready, let key = publicKey(der) else { return false }
        defer { EVP_PKEY_free(key) }
        let type = reservoir_EVP_PKEY_id(key)
        let md: OpaquePointer?
        let half: Int
        if type == NID_dsa {
            var q: OpaquePointer? = nil
            guard EVP_PKEY_get_bn_param(key, "q", &q) == 1, let q else { return false }
            let bits = BN_num_bits(q)
            BN_free(q)
            switch bits {
            case 160: md = EVP_sha1()
            case 224: md = EVP_sha224()
            case 256: md = EVP_sha256()
            default: return false
            }
            half = (Int(bits) + 7) / 8
        } else if type == NID_X9_62_id_ecPublicKey {
            guard reservoir_EVP_PKEY_bits(key) == 256 else { return false }
            md = EVP_sha256()
            half = 32
        } else {
            return false
        }
        guard let sig = derSignature(signature, half: half) else { return false }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, md, nil, key) == 1 else { return false }
        return sig.withUnsafeBufferPointer { s in
            data.withUnsafeBufferPointer { d in EVP_DigestVerify(context, s.baseAddress, s.count, d.baseAddress, d.count) == 1 }
        }
    }

    private static func publicKey(_ der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            if let key = d2i_PUBKEY(nil, &pointer, buffer.count) { return key }
            pointer = buffer.baseAddress
            guard let certificate = d2i_X509(nil, &pointer, buffer.count) else { return nil }
            defer { X509_free(certificate) }
            return X509_get_pubkey(certificate)
        }
    }

    /// The signature as DER `SEQUENCE { r INTEGER, s INTEGER }`: the field's DER with its zero
    /// padding cut, or, when the field is not DER, its two halves as r and s (version 2 tickets
    /// of some railways).
    static func derSignature(_ field: [UInt8], half: Int) -> [UInt8]? {
        if field.count >= 2, field[0] == 0x30, field[1] < 0x80, Int(field[1]) + 2 <= field.count {
            let total = Int(field[1]) + 2
            if field[total...].allSatisfy({ $0 == 0 }) { return Array(field[0..<total]) }
        }
        guard field.count >= 2 * half else { return nil }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(field[0..<half]) + integer(field[half..<(2 * half)])
        guard body.count < 128 else { return nil }
        return [0x30, UInt8(body.count)] + body
    }
}
