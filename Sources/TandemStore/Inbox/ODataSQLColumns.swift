import TandemCore

/// The SQL expressions, one per filterable or sortable field, that the translation writes verbatim.
///
/// These are trusted code, never user input: column names or expressions such as
/// `CASE d.status WHEN 'Read' THEN 'Delivered' ELSE d.status END`. For the SQL result to equal
/// ``ODataQuery/apply(to:)`` they must be NOT NULL and hold what ``InboxMessage`` holds: `id` the GUID's
/// canonical lower-case text, `updateID` an integer, `sender` the text, `dateTime` unix milliseconds as an
/// integer, `status` the ``AppMessageStatus`` wire name exactly as spelled.
public struct ODataSQLColumns: Sendable, Hashable {
    public var id: String
    public var updateID: String
    public var sender: String
    public var dateTime: String
    public var status: String

    public init(id: String, updateID: String, sender: String, dateTime: String, status: String) {
        self.id = id
        self.updateID = updateID
        self.sender = sender
        self.dateTime = dateTime
        self.status = status
    }
}
