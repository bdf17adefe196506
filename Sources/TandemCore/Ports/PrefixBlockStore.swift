/// Where prefix blocks are kept across restarts (the SQLite store; tests use memory).
public protocol PrefixBlockStore: Sendable {
    /// Blocks whose `until` is after `now`, oldest first.
    func activePrefixBlocks(now: Timestamp) async throws -> [PrefixBlock]
    /// Stores a block, replacing any earlier one for the same app and prefix.
    func insert(_ block: PrefixBlock) async throws
    /// Ends the app's block on `prefix` at `now`; false when there is no active one.
    func liftPrefixBlock(app: AppKey, prefix: NumberPrefix, now: Timestamp) async throws -> Bool
}
