extension Duration {
    /// For log lines people read: `200 ms`, `1 s`, `1.5 s`, `2 min`.
    var spoken: String {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1_000 + attoseconds / 1_000_000_000_000_000
        if milliseconds < 1_000 { return "\(milliseconds) ms" }
        if milliseconds % 60_000 == 0 { return "\(milliseconds / 60_000) min" }
        if milliseconds % 1_000 == 0 { return "\(milliseconds / 1_000) s" }
        let tenths = (milliseconds + 50) / 100
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
