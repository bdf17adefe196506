/// A receipt the simulated app sends, as a real app does through the device API (`PUT /v1.0/messages`).
/// The shell hands them to the same scheduler events: `.delivered` → `deliveryAcknowledged(DeviceID)`,
/// `.read` → `readReported(DeviceID)`.
public enum SimulatedReceipt: String, Sendable, Hashable, CaseIterable {
    /// The app received the push (`Status: Delivered`).
    case delivered
    /// The app displayed the message (`ReadByRecipient`).
    case read
}
