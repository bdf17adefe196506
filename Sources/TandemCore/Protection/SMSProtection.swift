/// An app's protection of its PIN SMS against SMS pumping (`tandem app set-sms-protection`,
/// `PUT /admin/apps/{appKey}/sms-protection`), stored with the app as JSON:
/// `{"mode":"enforce"|"monitor","allow":["NL","BE"]|"deny":["CU","001"],"pinLength":6}` (every key optional).
///
/// `mode` covers every check of ``PinSMSGuard`` for the app — the country rule, the prefix velocity limit,
/// the daily cap per number and conversion blocks — so a new setting can be watched before it bites. The
/// older abuse limits (per number, per app, per client address) always enforce.
public struct SMSProtection: Sendable, Hashable {
    public var mode: ProtectionMode
    public var countries: CountryRule
    /// Digits in this app's PINs; nil: `deviceAPI.verification.pinLength`.
    public var pinLength: Int?

    public static let pinLengths = 4...10

    public init(mode: ProtectionMode = .enforce, countries: CountryRule = .anywhere, pinLength: Int? = nil) {
        self.mode = mode
        self.countries = countries
        self.pinLength = pinLength
    }

    public var isDefault: Bool { self == SMSProtection() }
}

extension CountryRule {
    /// The rule from optional `allow` and `deny` lists (at most one of them).
    public static func lists(allow: [String]?, deny: [String]?) throws(SMSProtectionError) -> CountryRule {
        func regions(_ texts: [String], _ key: String) throws(SMSProtectionError) -> Set<RegionCode> {
            var set = Set<RegionCode>()
            for text in texts {
                guard let region = RegionCode(text) else {
                    throw SMSProtectionError("\"\(key)\": \"\(text)\" is not a region code (two letters like NL, or 001 for non-geographic numbers)")
                }
                set.insert(region)
            }
            return set
        }
        switch (allow, deny) {
        case (nil, nil): return .anywhere
        case (let allow?, nil): return .allow(try regions(allow, "allow"))
        case (nil, let deny?): return .deny(try regions(deny, "deny"))
        case (_?, _?): throw SMSProtectionError("give \"allow\" or \"deny\", not both")
        }
    }

    /// `("allow"|"deny", sorted regions)`, or nil for ``anywhere``.
    public var list: (key: String, regions: [RegionCode])? {
        switch self {
        case .anywhere: nil
        case .allow(let regions): ("allow", regions.sorted())
        case .deny(let regions): ("deny", regions.sorted())
        }
    }
}

extension SMSProtection: Codable {
    enum CodingKeys: String, CodingKey { case mode, allow, deny, pinLength }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if let mode = try ProtectionMode.decodeIfPresent(from: c, forKey: .mode) { self.mode = mode }
        countries = try CountryRule.decode(c, allow: .allow, deny: .deny)
        pinLength = try c.decodeIfPresent(Int.self, forKey: .pinLength)
        if let pinLength, !Self.pinLengths.contains(pinLength) {
            throw DecodingError.dataCorruptedError(forKey: .pinLength, in: c, debugDescription: "must be 4 to 10")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mode.rawValue, forKey: .mode)
        if let (key, regions) = countries.list {
            try c.encode(regions.map(\.text), forKey: key == "allow" ? .allow : .deny)
        }
        try c.encodeIfPresent(pinLength, forKey: .pinLength)
    }
}

extension CountryRule {
    static func decode<K: CodingKey>(_ c: KeyedDecodingContainer<K>, allow: K, deny: K) throws -> CountryRule {
        do {
            return try lists(allow: try c.decodeIfPresent([String].self, forKey: allow),
                             deny: try c.decodeIfPresent([String].self, forKey: deny))
        } catch let error as SMSProtectionError {
            throw DecodingError.dataCorruptedError(forKey: allow, in: c, debugDescription: error.description)
        }
    }
}
