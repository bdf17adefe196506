import TandemCore

/// Status reports in CM's shapes, for senders' webhooks.
///
/// JSON: `{"messages":{"msg":{"received","to","reference","status":{"code","errorCode","errorDescription"},"operator"}}}`;
/// XML: `<MESSAGES SENT=…><MSG RECEIVED=…><TO/><REFERENCE/><STATUS><CODE/><ERRORCODE/><ERRORDESCRIPTION/></STATUS><OPERATOR/></MSG></MESSAGES>`.
/// CM's status codes: 1 rejected, 2 delivered, 3 failed (0, accepted, is never final). `to` is the number
/// in CM's `00` form. Tandem adds fields CM clients ignore: `messageId`, `updateId`, `tandemStatus`
/// (the exact final status, e.g. `Read` or `Cancelled`), `channel` (`Push`/`SMS`), `fallback` (whether
/// the SMS was a fallback from a push) with `fallbackReason`, `acceptedAt` and `finalAt`.
public enum CMStatusReportEncoder {
    /// The request body for any queued item: a status report in its format, a myMSP event as its form
    /// (``MyMSPEventForm``) — the relay's one encoder.
    public static func encode(_ item: OutboxItem) -> (contentType: String, body: [UInt8]) {
        switch item.content {
        case .statusReport(let payload):
            switch item.format {
            case .json: ("application/json", json(payload))
            case .xml: ("application/xml; charset=utf-8", xml(payload))
            }
        case .mymspEvent(let event):
            (MyMSPEventForm.contentType, MyMSPEventForm.body(event))
        }
    }

    static func code(_ status: DeliveryStatus) -> Int {
        switch status {
        case .accepted, .sent: 0
        case .rejected: 1
        case .delivered, .read: 2
        case .failed, .cancelled: 3
        }
    }

    private static func errorDescription(_ report: StatusReportPayload) -> String {
        switch report.status {
        case .delivered, .read, .accepted, .sent: ""
        case .rejected, .failed, .cancelled: report.rejectReason ?? report.resolution ?? report.status.wireName
        }
    }

    private static func cmNumber(_ msisdn: String) -> String {
        msisdn.hasPrefix("+") ? "00" + msisdn.dropFirst() : msisdn
    }

    static func json(_ report: StatusReportPayload) -> [UInt8] {
        let description = errorDescription(report)
        var out = "{\"messages\":{\"msg\":{"
        out += "\"received\":" + JSONText.quoted(ISO8601.format(report.at))
        out += ",\"to\":" + JSONText.quoted(cmNumber(report.msisdn))
        out += ",\"reference\":" + (report.reference.map(JSONText.quoted) ?? "null")
        out += ",\"status\":{\"code\":" + JSONText.quoted(String(code(report.status)))
        out += ",\"errorCode\":" + JSONText.quoted(description.isEmpty ? "" : String(code(report.status)))
        out += ",\"errorDescription\":" + JSONText.quoted(description) + "}"
        out += ",\"operator\":\"\""
        out += ",\"messageId\":" + JSONText.quoted(report.messageID.text)
        out += ",\"updateId\":\(report.deliveryKey.rawValue)"
        out += ",\"tandemStatus\":" + JSONText.quoted(report.status.wireName)
        out += ",\"channel\":" + (report.channel.map { JSONText.quoted($0.wireName) } ?? "null")
        out += ",\"fallback\":\(report.fallback)"
        out += ",\"fallbackReason\":" + (report.fallback ? report.smsCause.map(JSONText.quoted) ?? "null" : "null")
        out += ",\"acceptedAt\":" + JSONText.quoted(ISO8601.format(report.acceptedAt))
        out += ",\"finalAt\":" + JSONText.quoted(ISO8601.format(report.at))
        out += "}}}"
        return Array(out.utf8)
    }

    static func xml(_ report: StatusReportPayload) -> [UInt8] {
        let description = errorDescription(report)
        let received = ISO8601.format(report.at)
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        out += "<MESSAGES SENT=\"\(received)\"><MSG RECEIVED=\"\(received)\">"
        out += "<TO>" + escape(cmNumber(report.msisdn)) + "</TO>"
        out += "<REFERENCE>" + escape(report.reference ?? "") + "</REFERENCE>"
        out += "<STATUS><CODE>\(code(report.status))</CODE><ERRORCODE>" + (description.isEmpty ? "" : String(code(report.status)))
            + "</ERRORCODE><ERRORDESCRIPTION>" + escape(description) + "</ERRORDESCRIPTION></STATUS>"
        out += "<OPERATOR></OPERATOR>"
        out += "<MESSAGEID>" + report.messageID.text + "</MESSAGEID>"
        out += "<UPDATEID>\(report.deliveryKey.rawValue)</UPDATEID>"
        out += "<TANDEMSTATUS>" + report.status.wireName + "</TANDEMSTATUS>"
        out += "<CHANNEL>" + (report.channel?.wireName ?? "") + "</CHANNEL>"
        out += "<FALLBACK REASON=\"" + escape(report.fallback ? report.smsCause ?? "" : "") + "\">\(report.fallback)</FALLBACK>"
        out += "<ACCEPTEDAT>" + ISO8601.format(report.acceptedAt) + "</ACCEPTEDAT>"
        out += "<FINALAT>" + received + "</FINALAT>"
        out += "</MSG></MESSAGES>"
        return Array(out.utf8)
    }

    private static func escape(_ text: String) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
