/// Migration 11: each policy stored once, named by number in the snapshots.
extension TandemSchema {
    /// A delivery keeps the policy it was accepted under (a policy file changed later does not alter it), and
    /// its snapshot spelled that policy out: ~220 of a push's ~600 bytes, written again on every update — a third
    /// of the log and of every checkpoint under receipts. `policies` holds each distinct policy once (`body` in
    /// the shape of `Policies/*.json`, as `JSONEncoder` with sorted keys writes it); a snapshot names it by `id`.
    /// A snapshot names a number only once the row that holds it has committed (``PolicyCatalog``); older
    /// snapshots, and any written before their policy's row committed, spell it out, and both read back alike.
    /// Rows are never deleted.
    public static let policies = Migration(version: 11, name: "policies stored once", sql: """
        CREATE TABLE policies (
            id INTEGER PRIMARY KEY,
            body TEXT NOT NULL UNIQUE CHECK (json_valid(body))
        ) STRICT;
        """)
}
