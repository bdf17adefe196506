/// One `$orderby` item: a sortable field and a direction (`DateTime desc`).
public struct ODataOrder: Sendable, Hashable {
    public enum Direction: String, Sendable, Hashable {
        case ascending = "asc"
        case descending = "desc"
    }

    public var field: ODataSortField
    public var direction: Direction

    public init(_ field: ODataSortField, _ direction: Direction = .ascending) {
        self.field = field
        self.direction = direction
    }

    /// `DateTime asc`, `ID desc`.
    public static func ascending(_ field: ODataSortField) -> ODataOrder { ODataOrder(field, .ascending) }
    public static func descending(_ field: ODataSortField) -> ODataOrder { ODataOrder(field, .descending) }
}

extension ODataOrder: CustomStringConvertible {
    /// The OData spelling: `DateTime desc`.
    public var description: String { "\(field.rawValue) \(direction.rawValue)" }
}
