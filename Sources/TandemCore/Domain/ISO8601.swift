/// ISO 8601 instants in UTC with milliseconds (`2026-11-21T10:15:30.123Z`), as the APIs show times.
/// Pure arithmetic on the proleptic Gregorian calendar (no Foundation formatter, no locale).
public enum ISO8601 {
    /// `zoneDesignator: false` leaves out the `Z`: the app API's documented format
    /// (`YYYY-MM-DDTHH:mm:ss.ms`, always UTC), which SDKs may parse with exactly that pattern.
    public static func format(_ instant: Timestamp, zoneDesignator: Bool = true) -> String {
        let millis = instant.milliseconds
        let days = floorDivide(millis, 86_400_000)
        let inDay = millis - days * 86_400_000
        let (year, month, day) = civil(fromDays: days)
        let hour = inDay / 3_600_000, minute = inDay / 60_000 % 60, second = inDay / 1_000 % 60, milli = inDay % 1_000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2) + ":"
            + pad(second, 2) + "." + pad(milli, 3) + (zoneDesignator ? "Z" : "")
    }

    /// The number of days in `month` (1–12) of `year`.
    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 for a civil date (Howard Hinnant's `days_from_civil`).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (`civil_from_days`).
    public static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
