/// Query parameters parsed from a raw query string with
/// `application/x-www-form-urlencoded` rules: pairs split on `&`, name and
/// value split on the first `=`, `+` means space, `%XX` is decoded.
///
/// Order and repeated names are kept. A pair without `=` has the value `""`.
/// Empty pairs (`a=1&&b=2`) are skipped. `;` is NOT a separator. Lookup via the
/// subscript is case-sensitive; use `value(caseInsensitive:)` for the other kind.
public struct QueryParameters: Sendable, Sequence, Equatable {
    /// One decoded parameter.
    public typealias Element = (name: String, value: String)

    private var pairs: [Element]

    /// No parameters.
    public init() { pairs = [] }

    /// Parses a raw (still percent-encoded) query, without the leading `?`.
    public init(rawQuery: String) {
        self.init(rawQuery: rawQuery[...])
    }

    init(rawQuery: Substring) {
        pairs = []
        guard !rawQuery.isEmpty else { return }
        for part in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            if let eq = part.firstIndex(of: "=") {
                let name = PercentDecoding.decode(part[..<eq], plusIsSpace: true)
                let value = PercentDecoding.decode(part[part.index(after: eq)...], plusIsSpace: true)
                pairs.append((name: name, value: value))
            } else {
                pairs.append((name: PercentDecoding.decode(part, plusIsSpace: true), value: ""))
            }
        }
    }

    /// Parses an `application/x-www-form-urlencoded` body: the same pairs as
    /// `init(rawQuery: String(decoding: body, as: UTF8.self))`. An all-ASCII body (what form encoding
    /// produces) is split byte by byte, without a `String` of the whole body or a walk over its characters;
    /// any other goes the way of ``init(rawQuery:)`` (where a combining mark after `&` or `=` joins it).
    public init(formBody body: [UInt8]) {
        guard body.allSatisfy({ $0 < 0x80 }) else {
            self.init(rawQuery: String(decoding: body, as: UTF8.self))
            return
        }
        var pairs: [Element] = []
        for part in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let eq = part.firstIndex(of: UInt8(ascii: "=")) {
                pairs.append((name: PercentDecoding.decode(bytes: part[..<eq]),
                              value: PercentDecoding.decode(bytes: part[part.index(after: eq)...])))
            } else {
                pairs.append((name: PercentDecoding.decode(bytes: part), value: ""))
            }
        }
        self.init(pairs: pairs)
    }

    private init(pairs: [Element]) {
        self.pairs = pairs
    }

    /// The number of pairs, counting repeats.
    public var count: Int { pairs.count }

    /// Whether there are no pairs.
    public var isEmpty: Bool { pairs.isEmpty }

    /// The first value for `name` (exact, case-sensitive match), or `nil`.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value for `name` (case-sensitive), in order.
    public func values(for name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// The first value whose name equals `name` ignoring ASCII case, or `nil`.
    public func value(caseInsensitive name: String) -> String? {
        pairs.first { ASCIICaseInsensitive.equals($0.name, name) }?.value
    }

    /// Every value whose name equals `name` ignoring ASCII case, in order.
    public func values(caseInsensitive name: String) -> [String] {
        pairs.filter { ASCIICaseInsensitive.equals($0.name, name) }.map(\.value)
    }

    public func makeIterator() -> IndexingIterator<[Element]> {
        pairs.makeIterator()
    }

    public static func == (lhs: QueryParameters, rhs: QueryParameters) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
