import TandemCore

/// The payloads of a ``BWMIPush`` (see there for their exact members), as the APNs and FCM renderers build
/// them when a presentation asks for BWMI's shape. Pure.
///
/// The `nid` is the delivery's update id, taken from the `updateId` member of the push's identifiers
/// (``PushIdentifiers``). The text is cut (on a character boundary, ending with "…") so that the payload
/// stays within `limit` bytes; nothing else is cut.
enum BWMIPayload {
    /// `aps` plus `nid`, `bid`, `faf` (APNs).
    static func apns(_ push: BWMIPush, _ presentation: PushPresentation, text: String, identifiers: [JSONMember],
                     limit: Int) -> JSONValue {
        let render = { (text: String) -> JSONValue in
            var aps = JSONObjectBuilder()
            switch push {
            case .managed, .fireAndForget: aps.add("alert", .string(text))
            case .badgeOnly: break
            }
            switch push {
            case .managed, .fireAndForget: aps.add("sound", presentation.sound.map { .string($0.name) })
            case .badgeOnly: break
            }
            aps.add("badge", presentation.badge.map { .number(String($0)) })
            var members = JSONObjectBuilder()
            members.add("aps", aps.value)
            switch push {
            case .managed(let bid, _):
                members.add("nid", nid(identifiers))
                members.add("bid", bid.map(JSONValue.string))
                members.add("faf", .string("false"))
            case .fireAndForget(let bid):
                members.add("bid", bid.map(JSONValue.string))
                members.add("faf", .string("true"))
            case .badgeOnly: break
            }
            return members.value
        }
        return fitted(render, text: text, limit: limit)
    }

    /// FCM's `data`: every value a string.
    static func fcmData(_ push: BWMIPush, _ presentation: PushPresentation, text: String, identifiers: [JSONMember],
                        limit: Int) -> JSONValue {
        let badge = presentation.badge.map { JSONValue.string(String($0)) }
        let render = { (text: String) -> JSONValue in
            var data = JSONObjectBuilder()
            switch push {
            case .managed(let bid, let sentAt):
                data.add("text", .string(text))
                data.add("timestamp", .string(String(sentAt)))
                data.add("nid", nid(identifiers))
                data.add("bid", bid.map(JSONValue.string))
                data.add("faf", .string("false"))
                data.add("badge", badge)
            case .fireAndForget(let bid):
                data.add("text", .string(text))
                data.add("bid", bid.map(JSONValue.string))
                data.add("faf", .string("true"))
                data.add("sound", presentation.sound.map { .string($0.name) })
                data.add("badge", badge)
            case .badgeOnly:
                data.add("badge", badge ?? .string("0"))
            }
            return data.value
        }
        return fitted(render, text: text, limit: limit)
    }

    /// The update id as a string; nil when the identifiers carry none.
    private static func nid(_ identifiers: [JSONMember]) -> JSONValue? {
        identifiers.first { $0.key == "updateId" }?.value
    }

    private static func fitted(_ render: (String) -> JSONValue, text: String, limit: Int) -> JSONValue {
        let full = render(text)
        if full.compactText.utf8.count <= limit { return full }
        let fixed = render("").compactText.utf8.count - 2
        return render(PushText.truncated(text, toJSONLength: max(limit - fixed, 2)))
    }
}
