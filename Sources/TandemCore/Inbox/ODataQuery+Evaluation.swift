/// The in-memory evaluator: the reference semantics that ``ODataSQL`` must reproduce.
extension ODataQuery {
    /// `messages` filtered, ordered by ``effectiveOrder``, then `$skip` and `$top` applied.
    public func apply(to messages: [InboxMessage]) -> [InboxMessage] {
        var kept = messages
        if let filter {
            kept = kept.filter(filter.matches)
        }
        let order = effectiveOrder
        kept.sort { ODataOrder.precedes($0, $1, in: order) }
        let page = kept.dropFirst(skip)
        if let top {
            return Array(page.prefix(top))
        }
        return Array(page)
    }
}

extension ODataExpression {
    /// Whether `message` satisfies the filter.
    public func matches(_ message: InboxMessage) -> Bool {
        switch self {
        case .comparison(let comparison): comparison.matches(message)
        case .and(let left, let right): left.matches(message) && right.matches(message)
        case .or(let left, let right): left.matches(message) || right.matches(message)
        case .not(let operand): !operand.matches(message)
        }
    }
}

extension ODataComparison {
    /// Whether `message`'s field stands in this relation to the value.
    public func matches(_ message: InboxMessage) -> Bool {
        switch self {
        case .id(let op, let guid): op.holds(ODataOrdering(message.id, guid))
        case .updateID(let op, let value): op.holds(ODataOrdering(message.updateID.rawValue, value))
        case .sender(let op, let text): op.holds(ODataOrdering(utf8: message.sender, text))
        case .dateTime(let op, let timestamp): op.holds(ODataOrdering(message.dateTime, timestamp))
        case .status(let op, let status): op.general.holds(AppMessageStatus(message.status) == status ? .equal : .less)
        }
    }
}

extension ODataOrder {
    /// Whether `lhs` sorts before `rhs` under `order` (the first key that differs decides).
    static func precedes(_ lhs: InboxMessage, _ rhs: InboxMessage, in order: [ODataOrder]) -> Bool {
        for key in order {
            let ordering = key.field.ordering(lhs, rhs)
            switch (ordering, key.direction) {
            case (.equal, _): continue
            case (.less, .ascending), (.greater, .descending): return true
            case (.greater, .ascending), (.less, .descending): return false
            }
        }
        return false
    }
}

extension ODataSortField {
    /// How `lhs` orders against `rhs` on this field (text fields by UTF-8 bytes, as SQLite's `BINARY`).
    func ordering(_ lhs: InboxMessage, _ rhs: InboxMessage) -> ODataOrdering {
        switch self {
        case .id: ODataOrdering(lhs.id, rhs.id)
        case .updateID: ODataOrdering(lhs.updateID.rawValue, rhs.updateID.rawValue)
        case .sender: ODataOrdering(utf8: lhs.sender, rhs.sender)
        case .dateTime: ODataOrdering(lhs.dateTime, rhs.dateTime)
        }
    }
}
