/// How a field's value orders against another value.
enum ODataOrdering: Sendable, Hashable {
    case less, equal, greater

    init<T: Comparable>(_ lhs: T, _ rhs: T) {
        self = lhs < rhs ? .less : (lhs == rhs ? .equal : .greater)
    }

    /// Byte-wise UTF-8 order, which is SQLite's `BINARY` collation (and Unicode scalar order); unlike
    /// `String`'s own `<` and `==`, it does not treat canonically equivalent spellings as equal.
    init(utf8 lhs: String, _ rhs: String) {
        if lhs.utf8.elementsEqual(rhs.utf8) {
            self = .equal
        } else {
            self = lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? .less : .greater
        }
    }
}
