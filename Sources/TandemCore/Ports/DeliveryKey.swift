/// A delivery's durable identity: its row id in the store. Also the `UpdateID` the app echoes in receipts.
public struct DeliveryKey: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    public static func < (lhs: DeliveryKey, rhs: DeliveryKey) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "#\(rawValue)" }
}
