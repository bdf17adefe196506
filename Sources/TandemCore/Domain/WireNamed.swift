/// An enum whose raw values are wire names that clients send in any casing and with stray spaces
/// (`"critical"`, `" Push"`). The canonical spelling is the raw value; parsing folds case and trims.
public protocol WireNamed: RawRepresentable, CaseIterable where RawValue == String {}

extension WireNamed {
    /// The wire name, exactly as the spec spells it.
    public var wireName: String { rawValue }

    /// Parses a wire name in any casing with surrounding spaces; nil for anything else.
    public init?(wireName: String) {
        if let exact = Self(rawValue: wireName) {  // the usual case, stored values above all
            self = exact
            return
        }
        let folded = wireName.trimmingASCIISpaces().lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = match
    }

    /// The wire names, for error messages: `Default, OTP, Critical`.
    public static var wireNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
