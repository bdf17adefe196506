/// PIN SMS sent and PINs verified over a sliding window, counted in `buckets` equal slices of `window`
/// aligned to multiples of the slice width (a slice leaves whole, so an event counts for between
/// `window − window/buckets` and `window`).
///
/// Pure: every call takes `now`. At most `buckets` slices are kept.
///
/// Worked example (window 1 h, 12 buckets of 5 min): 30 sends at 10:01, 3 verifications at 10:04 → sent 30,
/// verified 3 (10 %). At 10:59:59 both still count; at 11:00 the 11:00–11:05 slice begins, the 10:00–10:05
/// slice leaves, and both are 0.
public struct ConversionWindow: Sendable, Hashable {
    private struct Slice: Sendable, Hashable {
        let index: Int64
        var sent: Int
        var verified: Int
    }

    public let window: Duration
    public let buckets: Int
    private var slices: [Slice] = []

    public init(window: Duration, buckets: Int = 12) {
        precondition(buckets > 0 && window.milliseconds >= Int64(buckets), "a window needs at least one millisecond per bucket")
        self.window = window
        self.buckets = buckets
    }

    private var width: Int64 { window.milliseconds / Int64(buckets) }

    public mutating func recordSent(now: Timestamp) { add(now: now) { $0.sent += 1 } }
    public mutating func recordVerified(now: Timestamp) { add(now: now) { $0.verified += 1 } }

    /// PIN SMS sent inside the window.
    public func sent(now: Timestamp) -> Int { live(now: now).reduce(0) { $0 + $1.sent } }
    /// PINs verified inside the window.
    public func verified(now: Timestamp) -> Int { live(now: now).reduce(0) { $0 + $1.verified } }
    /// Whether nothing inside the window is left (the window may be forgotten).
    public func isEmpty(now: Timestamp) -> Bool { live(now: now).isEmpty }

    private func live(now: Timestamp) -> ArraySlice<Slice> {
        let oldest = now.milliseconds / width - Int64(buckets) + 1
        let first = slices.firstIndex { $0.index >= oldest } ?? slices.endIndex
        return slices[first...]
    }

    private mutating func add(now: Timestamp, _ change: (inout Slice) -> Void) {
        let index = now.milliseconds / width
        slices.removeFirst(slices.count - live(now: now).count)
        if let last = slices.indices.last, slices[last].index == index {
            change(&slices[last])
        } else {
            var slice = Slice(index: index, sent: 0, verified: 0)
            change(&slice)
            // Time only moves forward for the shell's clock; an earlier `now` joins the latest slice.
            if let last = slices.indices.last, slices[last].index > index { change(&slices[last]) } else { slices.append(slice) }
        }
    }
}
