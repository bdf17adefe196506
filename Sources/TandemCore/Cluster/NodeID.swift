/// The name of one `tandem serve` node among several sharing a database: what the lease rows' `owner` and the
/// nodes table's heartbeats hold.
///
/// 1 to 64 characters of ASCII letters, digits, `.`, `_` and `-` (a host name or a pod name fits), so that it
/// is safe in a log line, a metric label and a SQL text column without quoting. Ordered by its bytes, which is
/// also PostgreSQL's `COLLATE "C"` order: every node sorts the same set of ids the same way. Not checked: that
/// two running processes do not use the same id (that is a deployment error this type cannot see).
public struct NodeID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id as written: 1–64 characters of `[A-Za-z0-9._-]`.
    public let text: String

    /// The longest id accepted, in characters (all ASCII, so also in bytes).
    public static let maximumLength = 64

    public init(_ text: String) throws(ClusterSettingsError) {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= Self.maximumLength, bytes.allSatisfy(Self.isAllowed) else {
            throw .nodeID(text)
        }
        self.text = text
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// Byte order (`"node-10" < "node-9"`), the same on every node and in PostgreSQL's `"C"` collation.
    public static func < (lhs: NodeID, rhs: NodeID) -> Bool {
        lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
    }

    public var description: String { text }
}
