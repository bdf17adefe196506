/// The operating system of an app install, named by the SDK's `User-Agent`; decides APNs versus FCM.
public enum Platform: String, Sendable, Hashable, WireNamed, Codable {
    case iOS = "iOS"
    case android = "Android"
    case windowsPhone = "WindowsPhone"
}
