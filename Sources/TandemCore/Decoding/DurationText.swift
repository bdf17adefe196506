/// Durations written for people: an integer and a unit, `us`, `ms`, `s`, `m`, `h` or `d` (`"2ms"`, `"30s"`,
/// `"28d"`). Also the relative form of CM's `validity` field (`"2h"`, `"30m"`). No fractions, no signs, no
/// compound forms like `1h30m`.
public enum DurationText {
    private static let unitMicroseconds: [String: Int64] = [
        "us": 1, "ms": 1_000, "s": 1_000_000, "m": 60_000_000, "h": 3_600_000_000, "d": 86_400_000_000,
    ]

    public static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingASCIISpaces()
        guard let split = trimmed.firstIndex(where: { !($0.isASCII && $0.isNumber) }),
              split != trimmed.startIndex,
              let value = Int64(trimmed[..<split]) else { return nil }
        guard let microsPerUnit = unitMicroseconds[trimmed[split...].lowercased()] else { return nil }
        let (micros, overflow) = value.multipliedReportingOverflow(by: microsPerUnit)
        return overflow ? nil : .microseconds(micros)
    }

    /// The largest unit that divides the duration exactly (`.seconds(120)` → `"2m"`).
    public static func format(_ duration: Duration) -> String {
        let micros = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        let units: [(Int64, String)] = [(86_400_000_000, "d"), (3_600_000_000, "h"), (60_000_000, "m"),
                                        (1_000_000, "s"), (1_000, "ms")]
        for (size, name) in units where micros != 0 && micros % size == 0 {
            return "\(micros / size)\(name)"
        }
        return "\(micros)us"
    }
}
