/// FCM's `AndroidNotification.notification_priority`; the wire strings live here only.
public enum AndroidNotificationPriority: String, Sendable, Hashable, Codable, CaseIterable {
    case unspecified = "PRIORITY_UNSPECIFIED"
    case min = "PRIORITY_MIN"
    case low = "PRIORITY_LOW"
    case `default` = "PRIORITY_DEFAULT"
    case high = "PRIORITY_HIGH"
    case max = "PRIORITY_MAX"
}
