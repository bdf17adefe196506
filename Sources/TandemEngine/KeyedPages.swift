import TandemCore

/// A table by ``DeliveryKey`` kept in pages of `pageSize` consecutive keys: the scheduler's in-flight deliveries.
///
/// Keys are the store's row ids, handed out in order, and the receipts of one batch mostly name neighbouring
/// keys. In a dictionary of hundreds of thousands of keys the hasher spreads neighbours over the whole table,
/// so every lookup and removal landed on cold cache lines (the receipts benchmark's two per receipt were
/// ~10% of the scheduler thread). Here a small dictionary finds the page and neighbours share it.
///
/// Memory: a page lives while one of its keys is present — `pageSize` slots of one reference each, so about
/// 8 bytes per present key when keys are dense, at most one page (~200 bytes) per key when they are sparse.
/// Not guaranteed: any order of ``removeAll(where:)``'s answer.
struct KeyedPages<Value: AnyObject> {
    static var pageSize: Int { 16 }

    private var pages: [Int64: ContiguousArray<Value?>] = [:]
    private(set) var count = 0

    init() {}

    /// Makes room for about `count` keys, dense, without rehashing the page table.
    mutating func reserveCapacity(_ count: Int) {
        pages.reserveCapacity(count / Self.pageSize + 1)
    }

    subscript(key: DeliveryKey) -> Value? {
        get {
            let (page, slot) = Self.place(key)
            return pages[page]?[slot]
        }
        set {
            // One lookup of the page per change, which is then changed in place.
            let (page, slot) = Self.place(key)
            if let newValue {
                if Self.swap(newValue, into: slot, of: &pages[page, default: Self.emptyPage]) { count += 1 }
            } else if let index = pages.index(forKey: page), pages.values[index][slot] != nil {
                pages.values[index][slot] = nil
                count -= 1
                if pages.values[index].allSatisfy({ $0 == nil }) { pages.remove(at: index) }
            }
        }
    }

    /// Removes every value whose key satisfies `shouldRemove` and answers them (a pass over every page: for rare
    /// bulk changes, such as a cluster node giving a partition up).
    mutating func removeAll(where shouldRemove: (DeliveryKey) -> Bool) -> [Value] {
        var removed: [Value] = []
        for page in Array(pages.keys) {
            guard var slots = pages[page] else { continue }
            for slot in slots.indices where slots[slot] != nil && shouldRemove(DeliveryKey(page * Int64(Self.pageSize) + Int64(slot))) {
                removed.append(slots[slot]!)
                slots[slot] = nil
                count -= 1
            }
            pages[page] = slots.allSatisfy { $0 == nil } ? nil : slots
        }
        return removed
    }

    private static var emptyPage: ContiguousArray<Value?> { ContiguousArray(repeating: nil, count: pageSize) }

    /// Puts `value` in `slot` of `page`; whether the slot was empty.
    private static func swap(_ value: Value, into slot: Int, of page: inout ContiguousArray<Value?>) -> Bool {
        defer { page[slot] = value }
        return page[slot] == nil
    }

    /// The page (keys divided by the page size, rounded down) and the slot in it.
    private static func place(_ key: DeliveryKey) -> (page: Int64, slot: Int) {
        let size = Int64(pageSize)
        let page = key.rawValue >= 0 ? key.rawValue / size : (key.rawValue - size + 1) / size
        return (page, Int(key.rawValue - page * size))
    }
}
