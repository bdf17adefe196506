import TandemCore

/// myMSP's answers, as bytes: HTTP 200, `text/plain; charset=utf-8`, every line ended by LF. `A` and one
/// line per output value, or `N` and the error number.
///
/// - `subscribe`, `unsubscribe`, `unsubscribeall`: `A\n<recipientid>\n`;
/// - `updatekey`: `A\n<recipientid>\n`, and `reactivated\n` when it reactivated the recipient;
/// - `send`: `A\n<msgno>\n`;
/// - `get`: `A\n`, then `<msgno>\t<yyyyMMddHHmmssSSS>\t<content>\n` per notification, content cleaned;
/// - the event poll: `A\n`, then `;;` and the nine tab-separated fields per event (msgno, `yyyy-MM-dd HH:mm`,
///   user, action, `DPN`, `null`, recipient id, subject, subject again), cleaned when asked;
/// - any error: `N\n<number>\n`.
/// Cleaning replaces CR LF, LF and CR each with ` n `, and TAB with a space (times are UTC).
public enum MyMSPAnswer {
    public static let contentType = "text/plain; charset=utf-8"

    public static func accepted(_ values: [String]) -> [UInt8] {
        Array((["A"] + values).map { $0 + "\n" }.joined().utf8)
    }

    public static func refused(_ error: MyMSPError) -> [UInt8] {
        Array("N\n\(error.rawValue)\n".utf8)
    }

    public static func notifications(_ notifications: [MyMSPNotification]) -> [UInt8] {
        var text = "A\n"
        for notification in notifications {
            text += String(notification.msgno) + "\t" + MyMSPTime.compact(notification.sentAt) + "\t" + clean(notification.text) + "\n"
        }
        return Array(text.utf8)
    }

    public static func events(_ events: [MyMSPEvent], clean cleaning: Bool) -> [UInt8] {
        var text = "A\n"
        for event in events {
            let subject = cleaning ? clean(event.subject) : event.subject
            let fields = [String(event.msgno), MyMSPTime.minutes(event.createdAt), cleaning ? clean(event.userName) : event.userName,
                          event.action.rawValue, "DPN", "null", String(event.recipient), subject, subject]
            text += ";;" + fields.joined(separator: "\t") + "\n"
        }
        return Array(text.utf8)
    }

    /// CR LF, LF and CR → ` n `; TAB → space.
    public static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x09 }) else { return text }
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            switch scalar {
            case "\r":
                out += " n "
                if pending == "\n" { pending = scalars.next() }
            case "\n": out += " n "
            case "\t": out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
