/// An identifier that is a GUID on the wire (product tokens, app keys, device ids): parsed from text once,
/// generated from a random number generator, compared by value.
public protocol GUIDIdentifier: Sendable, Hashable {
    var guid: GUID { get }
    init(_ guid: GUID)
}

extension GUIDIdentifier {
    /// Parses the GUID text form (surrounding spaces allowed); nil when it is not one.
    public init?(_ text: String) {
        guard let guid = GUID(text.trimmingASCIISpaces()) else { return nil }
        self.init(guid)
    }

    /// A new random identifier; pass `SystemRandomNumberGenerator` for anything used as a secret.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> Self {
        Self(GUID.random(using: &generator))
    }

    /// The canonical lower-case text.
    public var text: String { guid.text }
}
