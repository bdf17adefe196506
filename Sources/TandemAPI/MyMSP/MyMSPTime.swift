import TandemCore

/// myMSP's two time formats, in UTC: `yyyyMMddHHmmssSSS` (`get`'s sent time and `sentafter`) and
/// `yyyy-MM-dd HH:mm` (events).
enum MyMSPTime {
    /// `yyyyMMddHHmmssSSS`.
    static func compact(_ instant: Timestamp) -> String {
        let (date, time, millis) = parts(instant)
        return pad(date.year, 4) + pad(date.month, 2) + pad(date.day, 2) + pad(time / 3_600, 2) + pad(time / 60 % 60, 2)
            + pad(time % 60, 2) + pad(millis, 3)
    }

    /// `yyyy-MM-dd HH:mm`.
    static func minutes(_ instant: Timestamp) -> String {
        let (date, time, _) = parts(instant)
        return pad(date.year, 4) + "-" + pad(date.month, 2) + "-" + pad(date.day, 2) + " " + pad(time / 3_600, 2) + ":"
            + pad(time / 60 % 60, 2)
    }

    /// `yyyyMMddHHmmssSSS` with a real date and time (years 1970–9999), else nil.
    static func parseCompact(_ text: String) -> Timestamp? {
        let digits = Array(text.utf8)
        guard digits.count == 17, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64 {
            digits[from..<(from + count)].reduce(0) { $0 * 10 + Int64($1 - 0x30) }
        }
        let (year, month, day) = (number(0, 4), number(4, 2), number(6, 2))
        let (hour, minute, second, millis) = (number(8, 2), number(10, 2), number(12, 2), number(14, 3))
        guard year >= 1970, (1...12).contains(month), day >= 1, day <= ISO8601.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        let days = ISO8601.days(year: year, month: month, day: day)
        return Timestamp(milliseconds: ((days * 86_400 + hour * 3_600 + minute * 60 + second) * 1_000) + millis)
    }

    private static func parts(_ instant: Timestamp) -> (date: (year: Int64, month: Int64, day: Int64), seconds: Int64, millis: Int64) {
        let ms = instant.milliseconds
        let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let rest = ms - days * 86_400_000
        return (ISO8601.civil(fromDays: days), rest / 1_000, rest % 1_000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
