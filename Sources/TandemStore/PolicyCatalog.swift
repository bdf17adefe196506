import Foundation
import Synchronization
import TandemCore

/// The policies of the `policies` table (migration 11) this process knows to be committed, by value and by number:
/// the snapshot writer names a policy by number only if it is here, and snapshot readers resolve numbers here.
///
/// Correct because a number enters the catalog only after the COMMIT that holds its row returned (``learn(_:)``,
/// from a commit's completion) or when read from the table (``reload(on:)``), and rows are never deleted: every
/// snapshot that names a number was written after that number's row committed, so whoever can read the snapshot
/// can read the row. A reader that meets a number it does not know (a row another process committed, e.g. `tandem`
/// commands beside `tandem serve`) reloads the table and decodes again (``decode(_:key:on:)``).
///
/// Numbers are handed out for at most `capacity` policies (Tandem's come from its few policy files); a policy beyond
/// that is spelled out in every snapshot, as before migration 11. Resolving numbers is not bounded: every row read
/// or written is resolvable (the table only grows by distinct policies, and a snapshot naming any of them must
/// decode — a deployment whose policy files changed many times over its life has more rows than `capacity`).
final class PolicyCatalog: PolicyResolving {
    private struct Entries {
        var numbers: [Policy: Int64] = [:]
        var policies: [Int64: Policy] = [:]
    }

    static let capacity = 256
    private let entries = Mutex(Entries())

    init() {}

    /// The number `policy` is stored under, when its row is known to be committed.
    func number(of policy: Policy) -> Int64? {
        entries.withLock { $0.numbers[policy] }
    }

    func policy(numbered number: Int64) -> Policy? {
        entries.withLock { $0.policies[number] }
    }

    /// Policies named by number when written.
    var count: Int { entries.withLock { $0.numbers.count } }

    /// Adds committed rows: each is resolvable; the first ``capacity`` policies are also named by number when written.
    func learn(_ numbered: [(policy: Policy, number: Int64)]) {
        guard !numbered.isEmpty else { return }
        entries.withLock { entries in
            for (policy, number) in numbered {
                entries.policies[number] = policy
                if entries.numbers.count < Self.capacity || entries.numbers[policy] != nil { entries.numbers[policy] = number }
            }
        }
    }

    /// Reads the whole table through `db` and learns every row (a row that does not decode is an error).
    func reload(on db: Connection) throws(StoreError) {
        let decoder = JSONDecoder()
        var numbered: [(policy: Policy, number: Int64)] = []
        for row in try db.query("SELECT id, body FROM policies ORDER BY id") {
            let number = try row.get("id", as: Int64.self)
            do {
                numbered.append((try decoder.decode(Policy.self, from: Data(try row.get("body", as: String.self).utf8)), number))
            } catch {
                throw .decoding(column: "policies.body", message: "policy #\(number): \(error)")
            }
        }
        learn(numbered)
    }

    /// A decoder that resolves policy numbers through this catalog.
    func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[.policyResolver] = self
        return decoder
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
