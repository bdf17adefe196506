/// A comparison operator; the raw value is its OData keyword (lower case, as OData spells it).
public enum ODataOperator: String, Sendable, Hashable, CaseIterable {
    case eq, ne, gt, ge, lt, le

    /// The operator with its operands swapped: `5 lt UpdateID` is `UpdateID gt 5`.
    public var flipped: ODataOperator {
        switch self {
        case .eq: .eq
        case .ne: .ne
        case .gt: .lt
        case .ge: .le
        case .lt: .gt
        case .le: .ge
        }
    }

    /// Whether `field op literal` holds, given how the field's value orders against the literal.
    func holds(_ ordering: ODataOrdering) -> Bool {
        switch (self, ordering) {
        case (.eq, .equal), (.ne, .less), (.ne, .greater): true
        case (.gt, .greater), (.ge, .greater), (.ge, .equal): true
        case (.lt, .less), (.le, .less), (.le, .equal): true
        case (.eq, .less), (.eq, .greater), (.ne, .equal): false
        case (.gt, .less), (.gt, .equal), (.ge, .less): false
        case (.lt, .equal), (.lt, .greater), (.le, .greater): false
        }
    }
}

/// The operators an unordered field (`Status`) admits.
public enum ODataEqualityOperator: String, Sendable, Hashable, CaseIterable {
    case eq, ne

    public var general: ODataOperator {
        switch self {
        case .eq: .eq
        case .ne: .ne
        }
    }
}
