/// Where a phone number is, as a region code: an ISO 3166-1 alpha-2 code (`NL`, `CU`), `001` for
/// non-geographic numbers (international freephone, satellite and network codes such as +881, +882, +979 —
/// favourite targets of SMS pumping), or `ZZ` for a calling code the table does not know.
///
/// Parsed once at the edge (config, CLI, admin API) and derived from an MSISDN by ``CallingCodes``.
public struct RegionCode: Sendable, Hashable, Comparable, TextCodable, CustomStringConvertible {
    public let text: String

    /// Two ASCII letters (case-insensitive; stored upper-case) or `001`.
    public init?(_ text: String) {
        let upper = text.uppercased()
        if upper == "001" {
            self.text = upper
            return
        }
        guard upper.utf8.count == 2, upper.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else { return nil }
        self.text = upper
    }

    /// Numbers that belong to no country (`+800`, `+870`, `+881`, `+882`, `+883`, `+979`, …).
    public static let nonGeographic = RegionCode(unchecked: "001")
    /// A calling code ``CallingCodes`` does not know.
    public static let unknown = RegionCode(unchecked: "ZZ")

    private init(unchecked text: String) { self.text = text }

    public static func < (lhs: RegionCode, rhs: RegionCode) -> Bool { lhs.text < rhs.text }
    public var description: String { text }
}
