/// The shape of status reports posted to a sender's webhook: CM's JSON or its XML.
public enum WebhookFormat: String, Sendable, Hashable, WireNamed, Codable {
    case json
    case xml
}
