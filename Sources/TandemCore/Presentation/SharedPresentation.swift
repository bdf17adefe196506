/// A ``PushPresentation`` held behind one immutable reference — none at all when it is empty — so that
/// copying what holds it (a ``SendCommand``, a ``MessageContent`` copied into every delivery and event of a
/// message) costs at most one retain instead of one per field. Equal and hashed by value.
@propertyWrapper
public struct SharedPresentation: Sendable, Hashable {
    private var box: Box?

    /// The empty presentation.
    public init() { box = nil }

    public init(wrappedValue: PushPresentation) {
        box = wrappedValue.isEmpty ? nil : Box(wrappedValue)
    }

    public var wrappedValue: PushPresentation {
        get { box?.value ?? .empty }
        set { box = newValue.isEmpty ? nil : Box(newValue) }
    }

    /// Itself (`$presentation`): handed on as it is, it is neither copied out nor compared again.
    public var projectedValue: SharedPresentation {
        get { self }
        set { self = newValue }
    }

    /// Whether the presentation is empty, without copying it out.
    public var isEmpty: Bool { box == nil }

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
