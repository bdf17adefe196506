/// A field that `$orderby` may name: the sortable subset of ``ODataField``, so that an order on an
/// unsortable field cannot be represented.
public enum ODataSortField: String, Sendable, Hashable, CaseIterable {
    case id = "ID"
    case updateID = "UpdateID"
    case sender = "Sender"
    case dateTime = "DateTime"

    /// The field this sort key orders by.
    public var field: ODataField {
        switch self {
        case .id: .id
        case .updateID: .updateID
        case .sender: .sender
        case .dateTime: .dateTime
        }
    }
}
