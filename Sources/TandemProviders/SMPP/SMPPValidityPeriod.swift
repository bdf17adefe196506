/// SMPP's relative time format for `validity_period` (§7.1.1): `YYMMDDhhmmsstnnR`, here always with
/// years and months 00, whole days, hours, minutes and seconds, tenths 0 and `nn` 00.
///
/// Example: 1 day 2 h 3 min 4 s is `000001020304000R`; 48 h is `000002000000000R`.
///
/// Rounded up to whole seconds (a message is never given less time than asked). Capped at 99 days
/// 23:59:59, the most the days field holds without counting months (whose length SMSCs interpret
/// differently). A zero or negative validity gives the empty string: the SMSC's default validity.
enum SMPPValidityPeriod {
    static func relative(_ validity: Duration) -> String {
        let (seconds, attoseconds) = validity.components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return "" }
        let maximum: Int64 = 99 * 86_400 + 86_399
        let total = min(seconds + (attoseconds > 0 ? 1 : 0), maximum)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let days = total / 86_400, hours = total / 3_600 % 24, minutes = total / 60 % 60, secs = total % 60
        return "0000" + two(days) + two(hours) + two(minutes) + two(secs) + "000R"
    }
}
