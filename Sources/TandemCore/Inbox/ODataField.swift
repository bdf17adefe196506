/// A property of ``InboxMessage`` as OData names it in `$select`, `$orderby` and `$filter`. The names are
/// case-sensitive, as OData spells them (`DateTime`, not `datetime`); the raw values are the only place
/// they are written.
///
/// What each field supports:
///
/// | Field       | `$select` | `$orderby` | `$filter`                              |
/// |-------------|-----------|------------|----------------------------------------|
/// | `ID`        | yes       | yes        | all six operators, GUID literals       |
/// | `UpdateID`  | yes       | yes        | all six operators, integer literals    |
/// | `Recipient` | yes       | no         | no (always the device's own MSISDN)    |
/// | `Sender`    | yes       | yes        | all six operators, string literals     |
/// | `Body`      | yes       | no         | no                                     |
/// | `DateTime`  | yes       | yes        | all six operators, `datetime'…'`       |
/// | `Status`    | yes       | no         | `eq` and `ne` only, status names       |
///
/// The declaration order is the order of the keys in a rendered message.
public enum ODataField: String, Sendable, Hashable, CaseIterable {
    case id = "ID"
    case updateID = "UpdateID"
    case recipient = "Recipient"
    case sender = "Sender"
    case body = "Body"
    case dateTime = "DateTime"
    case status = "Status"

    /// Whether `$filter` may compare this field.
    public var isFilterable: Bool {
        switch self {
        case .id, .updateID, .sender, .dateTime, .status: true
        case .recipient, .body: false
        }
    }

    /// The field as a sort key, when `$orderby` may name it.
    public var sortField: ODataSortField? {
        switch self {
        case .id: .id
        case .updateID: .updateID
        case .sender: .sender
        case .dateTime: .dateTime
        case .recipient, .body, .status: nil
        }
    }

    /// The field with exactly this name; nil for anything else.
    public static func named(_ name: String) -> ODataField? { ODataField(rawValue: name) }

    /// The field whose name matches `name` but for case, for a "did you mean" hint.
    public static func caseInsensitiveMatch(_ name: String) -> ODataField? {
        allCases.first { $0.rawValue.lowercased() == name.lowercased() }
    }

    /// `ID, UpdateID, Sender, DateTime, Status`: the names of the fields satisfying `predicate`.
    public static func names(where predicate: (ODataField) -> Bool) -> String {
        allCases.filter(predicate).map(\.rawValue).joined(separator: ", ")
    }
}
