import CSQLite

extension SQLiteResultCode {
    /// `sqlite3_errstr`: a static English description of the code's family.
    static func text(for code: SQLiteResultCode) -> String {
        guard let cString = sqlite3_errstr(code.rawValue) else { return "unknown error" }
        return String(cString: cString)
    }
}
