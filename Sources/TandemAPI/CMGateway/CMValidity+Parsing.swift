import TandemCore

extension CMValidity {
    /// Parses the forms CM senders use; nil for anything else.
    ///
    /// Absolute, with a zone that is required (text without one is ambiguous and refused):
    /// `2025-03-01T12:00:00Z`, `2025-03-01T12:00:00.250+01:00`, `2025-03-01T12:00:00+0100`,
    /// `2025-03-01 12:00:00 +01:00`, `2025-03-01 12:00:00Z`, `2025-03-01 12:00:00 GMT+01:00`, `… UTC`.
    /// Fractions of a second are rounded up to the millisecond. Years 1970–9999.
    ///
    /// Relative: one or more `<digits><unit>` with unit `d`, `h`, `m` or `s` (any casing), summed:
    /// `30m`, `2h`, `1h30m`, `2d`. Zero is refused.
    public init?(cmText: String) {
        let text = cmText.trimmingASCIISpaces()
        if let span = Self.parseRelative(text) {
            self = .relative(span)
        } else if let timestamp = Self.parseAbsolute(Array(text.utf8)) {
            self = .absolute(timestamp)
        } else {
            return nil
        }
    }

    /// `1h30m` → 90 minutes, each component through `DurationText.parse` (which has no compound form).
    static func parseRelative(_ text: String) -> Duration? {
        var total = Duration.zero
        var rest = Substring(text)
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            guard let unitIndex = rest.firstIndex(where: { !($0.isASCII && $0.isNumber) }),
                  unitIndex != rest.startIndex,
                  "dhmsDHMS".contains(rest[unitIndex]),
                  let component = DurationText.parse(String(rest[...unitIndex])) else { return nil }
            total += component
            guard total <= .seconds(Int64(Int32.max)) else { return nil }
            rest = rest[rest.index(after: unitIndex)...]
        }
        return total > .zero ? total : nil
    }

    /// `yyyy-MM-dd(T| )HH:mm:ss[.f…][ ](Z|±hh:mm|±hhmm|±hh|GMT|UTC|GMT±hh:mm|UTC±hh:mm)`.
    static func parseAbsolute(_ bytes: [UInt8]) -> Timestamp? {
        var reader = DigitReader(bytes: bytes)
        guard let year = reader.number(digits: 4), reader.skip("-"),
              let month = reader.number(digits: 2), reader.skip("-"),
              let day = reader.number(digits: 2) else { return nil }
        let separator = reader.peek
        guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ") else {
            return nil
        }
        reader.index += 1
        guard let hour = reader.number(digits: 2), reader.skip(":"),
              let minute = reader.number(digits: 2), reader.skip(":"),
              let second = reader.number(digits: 2) else { return nil }
        var extraMilliseconds: Int64 = 0
        if reader.skip(".") {
            let fraction = reader.digits()
            guard !fraction.isEmpty else { return nil }
            let padded = (fraction + [UInt8](repeating: 0, count: 3)).prefix(3)
            extraMilliseconds = padded.reduce(0) { $0 * 10 + Int64($1) }
            if fraction.count > 3, fraction.dropFirst(3).contains(where: { $0 != 0 }) { extraMilliseconds += 1 }
        }
        _ = reader.skip(" ")
        guard let offsetMinutes = reader.zoneOffsetMinutes(), reader.atEnd else { return nil }
        guard (1970...9999).contains(year), (1...12).contains(month),
              (1...Int(ISO8601.daysIn(month: Int64(month), year: Int64(year)))).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        let days = Int(ISO8601.days(year: Int64(year), month: Int64(month), day: Int64(day)))
        let seconds = Int64(days) * 86_400 + Int64(hour * 3_600 + minute * 60 + second) - Int64(offsetMinutes) * 60
        return Timestamp(milliseconds: seconds * 1_000 + extraMilliseconds)
    }
}

/// A cursor over ASCII bytes for the fixed-width date form.
private struct DigitReader {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index == bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard peek == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// Exactly `digits` decimal digits.
    mutating func number(digits count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += count
        return value
    }

    /// A run of digits as values 0–9.
    mutating func digits() -> [UInt8] {
        var values: [UInt8] = []
        while let byte = peek, (0x30...0x39).contains(byte) {
            values.append(byte - 0x30)
            index += 1
        }
        return values
    }

    /// `Z`, `GMT`, `UTC` (optionally followed by an offset), or `±hh:mm`, `±hhmm`, `±hh`; minutes east of UTC.
    mutating func zoneOffsetMinutes() -> Int? {
        guard let first = peek else { return nil }
        if first == UInt8(ascii: "Z") || first == UInt8(ascii: "z") {
            index += 1
            return 0
        }
        let rest = bytes[index...].prefix(3).map { $0 | 0x20 }
        if rest == Array("gmt".utf8) || rest == Array("utc".utf8) {
            index += 3
            if atEnd { return 0 }
        }
        guard let sign = peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        index += 1
        guard let hours = number(digits: 2), hours <= 23 else { return nil }
        var minutes = 0
        if !atEnd {
            _ = skip(":")
            guard let parsed = number(digits: 2), parsed <= 59 else { return nil }
            minutes = parsed
        }
        let total = hours * 60 + minutes
        return sign == UInt8(ascii: "-") ? -total : total
    }
}
