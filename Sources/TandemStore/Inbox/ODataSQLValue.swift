import TandemCore

/// A value bound to a `?` placeholder of the translated SQL. Times are unix milliseconds.
public enum ODataSQLValue: Sendable, Hashable {
    case text(String)
    case integer(Int64)
}
