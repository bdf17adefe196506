import TandemCore

/// CM's `body.type`: `auto` (the default: Unicode when the text needs it) or `plaintext`.
///
/// Tandem records the choice but counts parts the same way for both (`dcs` 8 is what forces UCS-2);
/// it never substitutes characters of a `plaintext` body that GSM-7 cannot carry.
public enum CMBodyType: String, Sendable, Hashable, WireNamed {
    case auto = "auto"
    case plaintext = "plaintext"

    /// Parses `auto` / `plaintext` in any casing with stray spaces; also `text`, which CM's Python SDK
    /// defines (`MessageBodyTypes.TEXT`) for plain text. Nil for anything else (`binary` included).
    init?(cmText text: String) {
        if let known = CMBodyType(wireName: text) {
            self = known
        } else if text.trimmingASCIISpaces().lowercased() == "text" {
            self = .plaintext
        } else {
            return nil
        }
    }
}
