/// A sender organisation: it authenticates gateway requests with its product token and owns apps.
public struct Account: Sendable, Hashable {
    public let name: String
    public let productToken: ProductToken
    /// Unix milliseconds.
    public let createdAt: Int64
    public let disabled: Bool
    /// Where the gateway may send SMS for this account.
    public let smsCountries: SMSCountryPolicy

    public init(name: String, productToken: ProductToken, createdAt: Int64, disabled: Bool = false,
                smsCountries: SMSCountryPolicy = SMSCountryPolicy()) {
        self.name = name
        self.productToken = productToken
        self.createdAt = createdAt
        self.disabled = disabled
        self.smsCountries = smsCountries
    }

    /// Account and app names: 1–100 characters, no control characters.
    public static func isValidName(_ name: String) -> Bool {
        let trimmed = name.trimmingASCIISpaces()
        return !trimmed.isEmpty && trimmed.count <= 100
            && !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    }
}
