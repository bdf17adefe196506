/// An account's rule for the SMS the gateway sends for it (`tandem account set-sms-countries`,
/// `PUT /admin/accounts/{productToken}/sms-countries`): `{"mode":…,"allow":[…]|"deny":[…]}`.
public struct SMSCountryPolicy: Sendable, Hashable {
    public var mode: ProtectionMode
    public var countries: CountryRule

    public init(mode: ProtectionMode = .enforce, countries: CountryRule = .anywhere) {
        self.mode = mode
        self.countries = countries
    }

    public var isDefault: Bool { self == SMSCountryPolicy() }
}

extension SMSCountryPolicy: Codable {
    enum CodingKeys: String, CodingKey { case mode, allow, deny }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if let mode = try ProtectionMode.decodeIfPresent(from: c, forKey: .mode) { self.mode = mode }
        countries = try CountryRule.decode(c, allow: .allow, deny: .deny)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mode.rawValue, forKey: .mode)
        if let (key, regions) = countries.list {
            try c.encode(regions.map(\.text), forKey: key == "allow" ? .allow : .deny)
        }
    }
}
