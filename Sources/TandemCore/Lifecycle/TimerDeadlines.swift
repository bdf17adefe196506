/// A delivery's armed timers: at most one deadline per ``TimerKind``.
///
/// Four inline fields rather than a dictionary: the scheduler keeps each delivery's previous state while an
/// event's commit is in flight (to undo it if the commit fails), so every event changes a *shared* copy — a
/// dictionary then allocates and fills a new table, these 32 bytes are just written. They also cost no heap
/// memory per in-flight delivery, and iterate in a fixed order (`TimerKind.allCases`), so equal deliveries
/// have equal snapshots. Encoded like a `[TimerKind: Timestamp]` (`{"noRead":1700000030000}`).
public struct TimerDeadlines: Sendable, Hashable {
    /// Milliseconds per kind, in `TimerKind.allCases` order; ``unset`` where none is armed.
    private var noDeliveryAck = Self.unset
    private var noRead = Self.unset
    private var lifetime = Self.unset
    private var smsValidity = Self.unset

    /// No deadline is this early (`Timestamp` counts milliseconds since 1970).
    private static let unset = Int64.min

    public init() {}

    public subscript(kind: TimerKind) -> Timestamp? {
        get {
            let milliseconds = switch kind {
            case .noDeliveryAck: noDeliveryAck
            case .noRead: noRead
            case .lifetime: lifetime
            case .smsValidity: smsValidity
            }
            return milliseconds == Self.unset ? nil : Timestamp(milliseconds: milliseconds)
        }
        set {
            let milliseconds = newValue?.milliseconds ?? Self.unset
            switch kind {
            case .noDeliveryAck: noDeliveryAck = milliseconds
            case .noRead: noRead = milliseconds
            case .lifetime: lifetime = milliseconds
            case .smsValidity: smsValidity = milliseconds
            }
        }
    }

    public var isEmpty: Bool {
        noDeliveryAck == Self.unset && noRead == Self.unset && lifetime == Self.unset && smsValidity == Self.unset
    }

    /// Disarms `kind`; returns the deadline it had, if any.
    @discardableResult
    public mutating func removeValue(forKey kind: TimerKind) -> Timestamp? {
        defer { self[kind] = nil }
        return self[kind]
    }
}

extension TimerDeadlines: Sequence {
    /// The armed timers, in `TimerKind.allCases` order.
    public struct Iterator: IteratorProtocol {
        let deadlines: TimerDeadlines
        /// The next kind to look at; nil once past the last.
        var kind: TimerKind? = .noDeliveryAck

        public mutating func next() -> (kind: TimerKind, deadline: Timestamp)? {
            while let current = kind {
                kind = Self.successor(of: current)
                if let deadline = deadlines[current] { return (current, deadline) }
            }
            return nil
        }

        /// The kind after `kind` in `TimerKind.allCases` order (tested), without building that array per call.
        private static func successor(of kind: TimerKind) -> TimerKind? {
            switch kind {
            case .noDeliveryAck: .noRead
            case .noRead: .lifetime
            case .lifetime: .smsValidity
            case .smsValidity: nil
            }
        }
    }

    public func makeIterator() -> Iterator { Iterator(deadlines: self) }
}

extension TimerDeadlines: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (TimerKind, Timestamp)...) {
        self.init()
        for (kind, deadline) in elements { self[kind] = deadline }
    }
}

extension TimerDeadlines: Codable {
    private struct KindKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: KindKey.self)
        for key in container.allKeys {
            guard let kind = TimerKind(rawValue: key.stringValue) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a timer kind: \(key.stringValue)")
            }
            self[kind] = try container.decode(Timestamp.self, forKey: key)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: KindKey.self)
        for (kind, deadline) in self { try container.encode(deadline, forKey: KindKey(stringValue: kind.rawValue)) }
    }
}
