/// A Swift type that converts to and from ``SQLValue``; used by ``Row`` typed accessors and
/// by ``SQLValueConvertible/sqlValue`` when building bindings.
///
/// Conversions are strict: `Int64(sqlValue: .text("1"))` is `nil`, not 1. The one widening is
/// `Double` from `.integer`. `Optional` maps `.null` to `nil`; a non-optional type rejects `.null`.
public protocol SQLValueConvertible: Sendable {
    /// The value to bind.
    var sqlValue: SQLValue { get }
    /// `nil` when `sqlValue` does not hold this type (including `.null` for non-optional types).
    init?(sqlValue: SQLValue)
}

extension Int64: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(self) }
    public init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self = value
    }
}

extension Int: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue, let int = Int(exactly: value) else { return nil }
        self = int
    }
}

extension Bool: SQLValueConvertible {
    /// Stored as 0 / 1; any non-zero integer reads back as `true`.
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    public init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self = value != 0
    }
}

extension Double: SQLValueConvertible {
    public var sqlValue: SQLValue { .real(self) }
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension String: SQLValueConvertible {
    public var sqlValue: SQLValue { .text(self) }
    public init?(sqlValue: SQLValue) {
        guard case .text(let value) = sqlValue else { return nil }
        self = value
    }
}

extension Array: SQLValueConvertible where Element == UInt8 {
    public var sqlValue: SQLValue { .blob(self) }
    public init?(sqlValue: SQLValue) {
        guard case .blob(let value) = sqlValue else { return nil }
        self = value
    }
}

extension SQLValue: SQLValueConvertible {
    public var sqlValue: SQLValue { self }
    public init?(sqlValue: SQLValue) { self = sqlValue }
}

extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
    public init?(sqlValue: SQLValue) {
        if case .null = sqlValue {
            self = .none
        } else if let wrapped = Wrapped(sqlValue: sqlValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}
