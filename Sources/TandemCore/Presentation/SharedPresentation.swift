/// A ``PushPresentation`` held behind one immutable reference — none at all when it is empty — so that
/// copying what holds it (a ``SendCommand``, a ``MessageContent`` copied into every delivery and event of a
/// message) costs at most one retain instead of one per field. Equal and hashed by value.
@propertyWrapper
public struct SharedPresentation: Sendable, Hashable {
    private var box: Box?

    public init(wrappedValue: PushPresentation) {
        box = wrappedValue.isEmpty ? nil : Box(wrappedValue)
    }

    public var wrappedValue: PushPresentation {
        get { box?.value ?? .empty }
        set { box = newValue.isEmpty ? nil : Box(newValue) }
    }

    public static func == (lhs: SharedPresentation, rhs: SharedPresentation) -> Bool {
        lhs.box === rhs.box || lhs.wrappedValue == rhs.wrappedValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(wrappedValue)
    }

    private final class Box: Sendable {
        let value: PushPresentation
        init(_ value: PushPresentation) { self.value = value }
    }
}
