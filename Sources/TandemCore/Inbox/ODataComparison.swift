/// `field op value`, with the value already in the field's type. The field is always on the left;
/// `5 lt UpdateID` is parsed as `UpdateID gt 5`.
///
/// - `id`: the GUID in canonical lower-case form (`guid'…'` or a quoted GUID, in either case);
/// - `sender`: compared as UTF-8 bytes (case-sensitive, no Unicode normalisation), like SQLite's `BINARY`;
/// - `dateTime`: to the millisecond;
/// - `status`: by name, which was matched case-insensitively when parsed.
public enum ODataComparison: Sendable, Hashable {
    case id(ODataOperator, GUID)
    case updateID(ODataOperator, Int64)
    case sender(ODataOperator, String)
    case dateTime(ODataOperator, Timestamp)
    case status(ODataEqualityOperator, AppMessageStatus)

    /// The field compared.
    public var field: ODataField {
        switch self {
        case .id: .id
        case .updateID: .updateID
        case .sender: .sender
        case .dateTime: .dateTime
        case .status: .status
        }
    }
}
