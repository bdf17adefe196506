import TandemCore

extension KannelSMSSender {
    /// Kannel's escape codes in the dlr-url, filled in by smsbox when a report arrives: `%d` the DLR type,
    /// `%A` the SMSC's reply (an SMPP receipt's text, `id:… stat:DELIVRD …`), `%T` the time (Unix seconds),
    /// `%p` the phone number the SMS went to.
    static let dlrEscapes = "type=%d&reply=%A&time=%T&to=%p"

    /// The dlr-url for one message: `dlrURL` plus `ref`, the escape codes and the token, as Kannel must
    /// store it (escape codes intact; the whole URL is encoded once more inside the sendsms query).
    static func dlrURL(base: String, reference: String, token: String?) -> String {
        var url = base + (base.contains("?") ? "&" : "?") + "ref=" + QueryEncoding.encode(reference) + "&" + dlrEscapes
        if let token { url += "&token=" + token }
        return url
    }

    /// The sendsms query (without `?`) for one text: GSM-7 text as `coding=0`, anything else (or a forced
    /// UCS-2) as `coding=2`, always `charset=UTF-8` (Kannel converts); `validity` in whole minutes, rounded
    /// up; with `reference`, the DLR mask and dlr-url, without it `dlr-mask=0` (no reports).
    static func sendSMSQuery(settings: Settings, from sender: String, to msisdn: MSISDN, text: String, forceUCS2: Bool,
                             validity: Duration?, reference: String?) -> String {
        let alphabet = SMSText.segmentation(of: text, forceUCS2: forceUCS2).alphabet
        var pairs: [(String, String)] = [
            ("username", settings.username), ("password", settings.password), ("from", sender), ("to", msisdn.e164),
            ("text", text), ("coding", alphabet == .ucs2 ? "2" : "0"), ("charset", "UTF-8"),
        ]
        if let validity { pairs.append(("validity", String(minutesRoundedUp(validity)))) }
        if let smsc = settings.smsc { pairs.append(("smsc", smsc)) }
        if let reference, let base = settings.dlrURL, !settings.dlrMask.isEmpty {
            pairs.append(("dlr-mask", String(settings.dlrMask.rawValue)))
            pairs.append(("dlr-url", dlrURL(base: base, reference: reference, token: settings.dlrToken)))
        } else {
            pairs.append(("dlr-mask", "0"))
        }
        return QueryEncoding.query(pairs)
    }

    /// At least one minute (Kannel reads 0 as "no validity").
    static func minutesRoundedUp(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let whole = seconds + (attoseconds > 0 ? 1 : 0)
        return max(1, (whole + 59) / 60)
    }

    /// The full request URL for a query.
    func url(query: String) -> String {
        settings.sendSMSURL + (settings.sendSMSURL.contains("?") ? "&" : "?") + query
    }
}
