extension NodeID {
    /// A 64-bit hash of the id's bytes that is the same in every process, on every platform and in every build:
    /// FNV-1a over the UTF-8 bytes, then MurmurHash3's 64-bit finaliser so that ids differing only in their last
    /// character (`node-1`, `node-2`) land far apart in the low bits too.
    ///
    /// Swift's `Hasher` is seeded at random per process, so it cannot be used for anything two nodes must agree
    /// on. The lease planner uses this hash only to spread where nodes start looking for free partitions; a
    /// different hash would change how often claims collide, never which node may hold what.
    public var stableHash: UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a 64-bit offset basis
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3  // FNV-1a 64-bit prime
        }
        hash = (hash ^ (hash >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        hash = (hash ^ (hash >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        return hash ^ (hash >> 33)
    }
}
