/// Tells at accept time whether a message's push fits its provider's payload limit once rendered, so a
/// sender learns it in the reply rather than from a failed send. Implemented by the providers' renderers.
public protocol PushPayloadMeasure: Sendable {
    /// The rendered size and the limit when a push of `content` to a `platform` device would exceed the
    /// limit even with its text shortened as far as the renderer shortens it; nil when it fits.
    func oversize(_ content: MessageContent, platform: Platform) -> (bytes: Int, limit: Int)?
}
