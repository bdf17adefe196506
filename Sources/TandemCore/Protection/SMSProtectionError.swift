/// Why a protection setting did not decode.
public struct SMSProtectionError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
