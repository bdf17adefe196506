import Foundation
import TandemCore
import TandemStoreSupport

/// The policy catalog's `policies` table on SQLite.
extension PolicyCatalog {
    /// Reads the whole table through `db` and learns every row (a row that does not decode is an error).
    func reload(on db: Connection) throws(StoreError) {
        var rows: [(number: Int64, body: String)] = []
        for row in try db.query("SELECT id, body FROM policies ORDER BY id") {
            rows.append((try row.get("id", as: Int64.self), try row.get("body", as: String.self)))
        }
        do throws(ColumnCodingError) {
            try learn(stored: rows)
        } catch {
            throw .decoding(column: "policies.body", message: error.message)
        }
    }

    /// Decodes a stored snapshot — through ``SnapshotReader`` when it has the writer's shape and names known policies,
    /// else with a decoder from ``decoder()``; a policy number the catalog does not know yet
    /// makes it reload the table through `db` and decode once more. `key` only names the row in the error.
    func decode(_ snapshot: String, key: Int64, with decoder: JSONDecoder, on db: Connection) throws(StoreError) -> Delivery {
        if let fast = SnapshotReader.read(snapshot, policy: { self.policy(numbered: $0) }) { return fast }
        do {
            return try decoder.decode(Delivery.self, from: Data(snapshot.utf8))
        } catch is UnknownPolicyNumber {
            try reload(on: db)
        } catch {
            throw .decoding(column: "snapshot", message: "delivery #\(key): \(error)")
        }
        do {
            return try decoder.decode(Delivery.self, from: Data(snapshot.utf8))
        } catch {
            throw .decoding(column: "snapshot", message: "delivery #\(key): \(error)")
        }
    }

    /// `policy`'s row: the number of the row with `body`, inserted if there is none. On the writer thread, inside
    /// the job that writes the first snapshot spelling `policy` out; it is learned once that job has committed.
    static func store(body: [UInt8], on db: Connection) throws(StoreError) -> Int64 {
        let text = String(decoding: body, as: UTF8.self)
        if let number = try db.scalar("SELECT id FROM policies WHERE body = ?", [.text(text)], as: Int64.self) {
            return number
        }
        try db.run("INSERT INTO policies (body) VALUES (?)", [.text(text)])
        return db.lastInsertRowID
    }
}
