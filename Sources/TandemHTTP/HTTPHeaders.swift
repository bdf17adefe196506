/// An ordered list of HTTP header fields (name, value).
///
/// Order and duplicates are preserved exactly as added (or as received).
/// Lookup by name is ASCII case-insensitive. Values are stored as given: no
/// trimming, folding, comma-joining or validation is done, and nothing stops
/// a caller from adding a name or value containing CR/LF (libmicrohttpd
/// rejects such response headers, which are then silently dropped).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, Equatable {
    /// One header field.
    public typealias Element = (name: String, value: String)

    /// Stored as a struct, handed out as ``Element`` tuples: an array of tuples is destroyed through the runtime's
    /// generic tuple witnesses, field by field (~3% of the HTTP threads, releasing every request's headers).
    fileprivate struct Field: Sendable {
        let name: String
        let value: String
    }

    private var fields: [Field]

    /// An empty header list.
    public init() { fields = [] }

    /// Headers from `(name, value)` pairs, order kept.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Headers from a literal; a literal may repeat a name.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields, counting repeats.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value for `name` (case-insensitive), or `nil`.
    public subscript(name: String) -> String? {
        for field in fields where ASCIICaseInsensitive.equals(field.name, name) {
            return field.value
        }
        return nil
    }

    /// Every value for `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.filter { ASCIICaseInsensitive.equals($0.name, name) }.map(\.value)
    }

    /// How many fields are named `name` (case-insensitive).
    public func count(of name: String) -> Int {
        fields.reduce(0) { $0 + (ASCIICaseInsensitive.equals($1.name, name) ? 1 : 0) }
    }

    /// Makes room for `count` fields in all.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Whether a field named `name` (case-insensitive) exists.
    public func contains(_ name: String) -> Bool {
        fields.contains { ASCIICaseInsensitive.equals($0.name, name) }
    }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with a single field (appended at the end).
    public mutating func set(name: String, value: String) {
        remove(name: name)
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(name: String) {
        fields.removeAll { ASCIICaseInsensitive.equals($0.name, name) }
    }

    public func makeIterator() -> Iterator {
        Iterator(fields: fields.makeIterator())
    }

    /// The fields in order, as ``Element`` tuples.
    public struct Iterator: IteratorProtocol {
        fileprivate var fields: IndexingIterator<[Field]>

        public mutating func next() -> Element? {
            fields.next().map { (name: $0.name, value: $0.value) }
        }
    }

    /// Equal when both hold the same fields in the same order; names compare case-insensitively, values exactly.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy {
                ASCIICaseInsensitive.equals($0.name, $1.name) && $0.value == $1.value
            }
    }
}
