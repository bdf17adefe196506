#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Process-level helpers for the benchmark (the library itself never touches clocks or /proc).
enum TimerBenchSystem {
    /// Timed segments per benchmark cell (the cell reports their median).
    static let segments = 3

    /// CLOCK_MONOTONIC in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Sleeps until CLOCK_MONOTONIC reaches `deadline` (absolute), retrying on EINTR.
    static func sleep(untilMonotonicNanoseconds deadline: UInt64) {
        #if canImport(Glibc)
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
        #else
        let now = monotonicNanoseconds()
        if deadline > now {
            usleep(useconds_t((deadline - now) / 1000))
        }
        #endif
    }

    static func writeToStandardError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    static var onlineCores: Int {
        Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    static var pageSize: Int {
        Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Resident set size from /proc/self/statm (0 where unavailable).
    static func residentBytes() -> Int {
        guard let text = readSmallFile("/proc/self/statm") else {
            return 0
        }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else {
            return 0
        }
        return pages * pageSize
    }

    /// CPU model from /proc/cpuinfo, or "unknown CPU".
    static var cpuModel: String {
        guard let text = readSmallFile("/proc/cpuinfo", limit: 8192) else {
            return "unknown CPU"
        }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingPrefix(" ").description
            }
        }
        return "unknown CPU"
    }

    /// First line of /proc/loadavg, or "n/a".
    static func loadAverage() -> String {
        guard let text = readSmallFile("/proc/loadavg") else {
            return "n/a"
        }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func readSmallFile(_ path: String, limit: Int = 512) -> String? {
        let descriptor = open(path, O_RDONLY)
        if descriptor < 0 {
            return nil
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, limit - 1) }
        if count <= 0 {
            return nil
        }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}

/// Deterministic generator for the benchmark's deadlines and ids.
struct TimerBenchRandom {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    mutating func below(_ bound: UInt64) -> UInt64 {
        next() % bound
    }

    /// SplitMix64 finaliser: a bijection, so distinct counters give distinct sparse ids.
    static func mix(_ value: UInt64) -> UInt64 {
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Median of unsorted values (0 for none).
func timerMedian(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// Percentile of a sorted array (nearest rank).
func timerPercentile<T>(_ sorted: [T], _ fraction: Double) -> T? {
    if sorted.isEmpty {
        return nil
    }
    let rank = min(sorted.count - 1, Int(Double(sorted.count) * fraction))
    return sorted[rank]
}

func timerFormatFixed(_ value: Double, _ digits: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<digits {
        scale *= 10
    }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < digits {
            text += String(repeating: "0", count: digits - decimals)
        }
    } else if digits > 0 {
        text += "." + String(repeating: "0", count: digits)
    }
    return text
}

func timerPadded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

/// `text` followed by spaces up to `width` characters (left-aligned column).
func timerPaddedRight(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

/// "1k", "10M", or the plain number.
func timerCountLabel(_ count: Int) -> String {
    if count >= 1_000_000 && count % 1_000_000 == 0 {
        return "\(count / 1_000_000)M"
    }
    if count >= 1000 && count % 1000 == 0 {
        return "\(count / 1000)k"
    }
    return String(count)
}
