/// A SQLite result code, primary (`SQLITE_BUSY`) or extended (`SQLITE_CONSTRAINT_UNIQUE`).
///
/// Connections enable extended result codes, so codes carried by ``StoreError`` are usually
/// extended; compare with ``primaryResultCode`` when only the family matters.
/// Not guaranteed: that every value SQLite may return has a named constant here.
public struct SQLiteResultCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code family (the low 8 bits), e.g. `.constraint` for `.constraintUnique`.
    public var primaryResultCode: SQLiteResultCode {
        SQLiteResultCode(rawValue: rawValue & 0xFF)
    }

    public static let ok = SQLiteResultCode(rawValue: 0)
    public static let error = SQLiteResultCode(rawValue: 1)
    public static let `internal` = SQLiteResultCode(rawValue: 2)
    public static let permission = SQLiteResultCode(rawValue: 3)
    public static let abort = SQLiteResultCode(rawValue: 4)
    public static let busy = SQLiteResultCode(rawValue: 5)
    public static let locked = SQLiteResultCode(rawValue: 6)
    public static let noMemory = SQLiteResultCode(rawValue: 7)
    public static let readOnly = SQLiteResultCode(rawValue: 8)
    public static let interrupt = SQLiteResultCode(rawValue: 9)
    public static let ioError = SQLiteResultCode(rawValue: 10)
    public static let corrupt = SQLiteResultCode(rawValue: 11)
    public static let full = SQLiteResultCode(rawValue: 13)
    public static let cantOpen = SQLiteResultCode(rawValue: 14)
    public static let schema = SQLiteResultCode(rawValue: 17)
    public static let tooBig = SQLiteResultCode(rawValue: 18)
    public static let constraint = SQLiteResultCode(rawValue: 19)
    public static let mismatch = SQLiteResultCode(rawValue: 20)
    public static let misuse = SQLiteResultCode(rawValue: 21)
    public static let range = SQLiteResultCode(rawValue: 25)
    public static let notADatabase = SQLiteResultCode(rawValue: 26)
    public static let row = SQLiteResultCode(rawValue: 100)
    public static let done = SQLiteResultCode(rawValue: 101)

    public static let constraintCheck = SQLiteResultCode(rawValue: 275)
    public static let constraintForeignKey = SQLiteResultCode(rawValue: 787)
    public static let constraintNotNull = SQLiteResultCode(rawValue: 1299)
    public static let constraintPrimaryKey = SQLiteResultCode(rawValue: 1555)
    public static let constraintTrigger = SQLiteResultCode(rawValue: 1811)
    public static let constraintUnique = SQLiteResultCode(rawValue: 2067)
    public static let constraintDataType = SQLiteResultCode(rawValue: 3091)
}

extension SQLiteResultCode: CustomStringConvertible {
    /// SQLite's static English text for the code plus the number, e.g. `"constraint failed (2067)"`.
    /// Not guaranteed: detail beyond the family (`sqlite3_errstr` does not name the constraint kind).
    public var description: String {
        "\(Self.text(for: self)) (\(rawValue))"
    }
}
