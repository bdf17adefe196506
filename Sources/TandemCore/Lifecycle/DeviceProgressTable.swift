/// What is known of a push to each of its devices, by DeviceID: a small dictionary.
///
/// One device is held inline, two or more in a dictionary. The scheduler keeps each delivery's previous
/// state while an event's commit is in flight (to undo it if the commit fails), so every receipt changes a
/// *shared* copy: a dictionary then allocates and fills a new table — the costliest allocation of a receipt —
/// while the inline entry is just written. Most pushes go to one install, and an in-flight delivery costs no
/// heap table. Encoded like a `[DeviceID: DeviceProgress]` (`{"<DeviceID>":{"accepted":true,…}}`).
///
/// One representation per content (none, one inline, or a dictionary of two or more), so equal tables
/// compare and hash equal. Iteration order: as a dictionary's, for two or more.
public struct DeviceProgressTable: Sendable, Hashable {
    public typealias Progress = Delivery.DeviceProgress

    private enum Storage: Sendable, Hashable {
        case none
        case one(DeviceID, Progress)
        case many([DeviceID: Progress])
    }

    private var storage = Storage.none

    public init() {}

    public init(_ entries: [DeviceID: Progress]) {
        for (device, progress) in entries { self[device] = progress }
    }

    public var count: Int {
        switch storage {
        case .none: 0
        case .one: 1
        case .many(let table): table.count
        }
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(device: DeviceID) -> Progress? {
        get {
            switch storage {
            case .none: nil
            case .one(let id, let progress): id == device ? progress : nil
            case .many(let table): table[device]
            }
        }
        set {
            switch storage {
            case .none:
                if let newValue { storage = .one(device, newValue) }
            case .one(let id, let progress):
                if id == device {
                    storage = newValue.map { .one(device, $0) } ?? .none
                } else if let newValue {
                    storage = .many([id: progress, device: newValue])
                }
            case .many(var table):
                storage = .none  // the table is referenced once more while it changes: no copy
                table[device] = newValue
                if table.count == 1, let (id, progress) = table.first {
                    storage = .one(id, progress)
                } else {
                    storage = .many(table)
                }
            }
        }
    }

    /// As a dictionary (tests, encoding).
    public var dictionary: [DeviceID: Progress] {
        Dictionary(uniqueKeysWithValues: self.map { ($0.device, $0.progress) })
    }
}

extension DeviceProgressTable: Sequence {
    public struct Iterator: IteratorProtocol {
        fileprivate enum Position {
            case one(DeviceID, Progress)
            case many(Dictionary<DeviceID, Progress>.Iterator)
            case done
        }

        fileprivate var position: Position

        public mutating func next() -> (device: DeviceID, progress: Progress)? {
            switch position {
            case .done:
                return nil
            case .one(let device, let progress):
                position = .done
                return (device, progress)
            case .many(var iterator):
                guard let (device, progress) = iterator.next() else {
                    position = .done
                    return nil
                }
                position = .many(iterator)
                return (device, progress)
            }
        }
    }

    public func makeIterator() -> Iterator {
        switch storage {
        case .none: Iterator(position: .done)
        case .one(let device, let progress): Iterator(position: .one(device, progress))
        case .many(let table): Iterator(position: .many(table.makeIterator()))
        }
    }

    public var underestimatedCount: Int { count }
}

extension DeviceProgressTable: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try [DeviceID: Progress](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try dictionary.encode(to: encoder)
    }
}
