extension Duration {
    /// Whole milliseconds for `poll(2)`, rounded up, 0 for none or negative, capped at `Int32.max`.
    var pollMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, self > .zero else { return 0 }
        let milliseconds = seconds.multipliedReportingOverflow(by: 1_000)
        guard !milliseconds.overflow else { return Int32.max }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds.partialValue + fraction)
    }

    /// Whole milliseconds, for logs.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
