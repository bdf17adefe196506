import TandemCore

/// The text form of `DateTime`: parsing the body of a `datetime'…'` literal into a ``Timestamp`` and
/// formatting a ``Timestamp`` for a response. Pure integer arithmetic on the proleptic Gregorian
/// calendar (Howard Hinnant's `days_from_civil`); no `Calendar`, no time zone database.
///
/// Accepted: `yyyy-MM-ddTHH:mm[:ss[.f…]][Z|±hh:mm]`, with 1 to 7 fraction digits (.NET sends 7) of which
/// those after the third must be zeros, since a `Timestamp` holds milliseconds; `T` and `Z` in either case;
/// no zone means UTC. A space where the offset's sign belongs is read as `+`, for servers that decoded
/// `+` in the query string as a space. Not accepted: leap seconds (`:60`), hour 24, week or ordinal dates,
/// the basic format without separators.
enum ODataDateTime {
    enum Problem: Error, Sendable, Hashable {
        /// Not in the accepted shape.
        case malformed
        /// The right shape but no such date or time (`2026-02-30`, `25:00`).
        case outOfRange
        /// Non-zero digits after the milliseconds.
        case subMillisecond
    }

    static func parse(_ text: String) throws(Problem) -> Timestamp {
        var reader = DigitReader(Array(text.unicodeScalars))
        let year = try reader.number(digits: 4)
        try reader.expect("-")
        let month = try reader.number(digits: 2)
        try reader.expect("-")
        let day = try reader.number(digits: 2)
        guard reader.take("T") || reader.take("t") else { throw .malformed }
        let hour = try reader.number(digits: 2)
        try reader.expect(":")
        let minute = try reader.number(digits: 2)
        var second: Int64 = 0
        var millisecond: Int64 = 0
        if reader.take(":") {
            second = try reader.number(digits: 2)
            if reader.take(".") {
                millisecond = try reader.fractionMilliseconds()
            }
        }
        var offsetMinutes: Int64 = 0
        if reader.take("Z") || reader.take("z") {
            // UTC
        } else if let sign = reader.takeSign() {
            let offsetHour = try reader.number(digits: 2)
            try reader.expect(":")
            let offsetMinute = try reader.number(digits: 2)
            guard offsetHour <= 23, offsetMinute <= 59 else { throw .outOfRange }
            offsetMinutes = sign * (offsetHour * 60 + offsetMinute)
        }
        guard reader.atEnd else { throw .malformed }
        guard (1...12).contains(month), (1...ISO8601.daysIn(month: month, year: year)).contains(day),
              hour <= 23, minute <= 59, second <= 59 else { throw .outOfRange }
        let days = ISO8601.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetMinutes * 60
        return Timestamp(milliseconds: seconds * 1_000 + millisecond)
    }
}

/// A cursor over the scalars of a date-time literal.
private struct DigitReader {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var atEnd: Bool { index == scalars.count }

    mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard index < scalars.count, scalars[index] == scalar else { return false }
        index += 1
        return true
    }

    mutating func expect(_ scalar: Unicode.Scalar) throws(ODataDateTime.Problem) {
        guard take(scalar) else { throw .malformed }
    }

    /// `+1` or `-1` for an offset sign (a space counts as `+`); nil when there is none.
    mutating func takeSign() -> Int64? {
        if take("+") || take(" ") { return 1 }
        if take("-") { return -1 }
        return nil
    }

    mutating func number(digits count: Int) throws(ODataDateTime.Problem) -> Int64 {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let digit = nextDigit() else { throw .malformed }
            value = value * 10 + digit
        }
        return value
    }

    /// 1 to 7 fraction digits as whole milliseconds; digits after the third must be zeros.
    mutating func fractionMilliseconds() throws(ODataDateTime.Problem) -> Int64 {
        var millis: Int64 = 0
        var count = 0
        var subMillisecond = false
        while let digit = nextDigit() {
            count += 1
            if count <= 3 {
                millis = millis * 10 + digit
            } else if digit != 0 {
                subMillisecond = true
            }
        }
        guard (1...7).contains(count) else { throw .malformed }
        guard !subMillisecond else { throw .subMillisecond }
        for _ in min(count, 3)..<3 { millis *= 10 }
        return millis
    }

    private mutating func nextDigit() -> Int64? {
        guard index < scalars.count, ("0"..."9").contains(scalars[index]) else { return nil }
        defer { index += 1 }
        return Int64(scalars[index].value - 48)
    }
}
