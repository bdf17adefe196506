/// How `Logger` writes a line: `json` for collectors (the default), `text` for a person at a terminal.
public enum LogFormat: String, Sendable, Hashable, CaseIterable {
    /// `{"ts":1700000000.123,"level":"info","msg":"store open","path":"data/tandem.sqlite"}`
    case json
    /// `22:13:20.123 info  store open path=data/tandem.sqlite` (UTC time of day; values with spaces, quotes
    /// or `=` are quoted like JSON strings).
    case text
}
