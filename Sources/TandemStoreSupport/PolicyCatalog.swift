import Foundation
import Synchronization
import TandemCore

/// The policies of the `policies` table (SQLite migration 11) this process knows to be committed, by value and by number:
/// the snapshot writer names a policy by number only if it is here, and snapshot readers resolve numbers here.
///
/// Correct because a number enters the catalog only after the COMMIT that holds its row returned (``learn(_:)``,
/// from a commit's completion) or when read from the table (``learn(stored:)``, each backend's reload), and rows are
/// never deleted: every snapshot that names a number was written after that number's row committed, so whoever can
/// read the snapshot can read the row. A reader that meets a number it does not know (a row another process committed, e.g. `tandem`
/// commands beside `tandem serve`) reloads the table and decodes again (each backend's `decode`).
///
/// Shared by the store backends (package access); reading and writing the table is each backend's.
///
/// Numbers are handed out for at most `capacity` policies (Tandem's come from its few policy files); a policy beyond
/// that is spelled out in every snapshot, as before migration 11. Resolving numbers is not bounded: every row read
/// or written is resolvable (the table only grows by distinct policies, and a snapshot naming any of them must
/// decode — a deployment whose policy files changed many times over its life has more rows than `capacity`).
package final class PolicyCatalog: PolicyResolving {
    private struct Entries {
        var numbers: [Policy: Int64] = [:]
        var policies: [Int64: Policy] = [:]
    }

    package static let capacity = 256
    private let entries = Mutex(Entries())

    package init() {}

    /// The number `policy` is stored under, when its row is known to be committed.
    package func number(of policy: Policy) -> Int64? {
        entries.withLock { $0.numbers[policy] }
    }

    package func policy(numbered number: Int64) -> Policy? {
        entries.withLock { $0.policies[number] }
    }

    /// Policies named by number when written.
    package var count: Int { entries.withLock { $0.numbers.count } }

    /// Adds committed rows: each is resolvable; the first ``capacity`` policies are also named by number when written.
    package func learn(_ numbered: [(policy: Policy, number: Int64)]) {
        guard !numbered.isEmpty else { return }
        entries.withLock { entries in
            for (policy, number) in numbered {
                entries.policies[number] = policy
                if entries.numbers.count < Self.capacity || entries.numbers[policy] != nil { entries.numbers[policy] = number }
            }
        }
    }

    /// Learns the whole `policies` table as read (`id`, `body` rows): each backend's reload. A body that does not
    /// decode fails the reload, naming its row, and nothing is learned.
    package func learn(stored rows: [(number: Int64, body: String)]) throws(ColumnCodingError) {
        let decoder = JSONDecoder()
        var numbered: [(policy: Policy, number: Int64)] = []
        numbered.reserveCapacity(rows.count)
        for row in rows {
            do {
                numbered.append((try decoder.decode(Policy.self, from: Data(row.body.utf8)), row.number))
            } catch {
                throw ColumnCodingError(message: "policy #\(row.number): \(error)")
            }
        }
        learn(numbered)
    }

    /// A decoder that resolves policy numbers through this catalog.
    package func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[.policyResolver] = self
        return decoder
    }
}
