import TandemCore

/// What the device API reads from an SDK's `User-Agent` (spec: "It should at least contain the mobile
/// platform (iOS, Android or WindowsPhone)"), e.g. `MyApp/1.0 (Android 6.0.1; LGE; Nexus 5X; en_US)`.
enum UserAgent {
    /// The platform the agent names, by word (case-insensitive): `WindowsPhone` or `Windows Phone` first
    /// (Windows Phone browsers also claim Android and iPhone), then `Android`, then `iOS`, `iPhone`,
    /// `iPad`, `iPod`, `iPadOS`. nil when it names none.
    static func platform(_ agent: String) -> Platform? {
        // Word by word over the UTF-8, without allocating (this runs on every request): a word longer than
        // any name looked for is skipped.
        var previous = Word.other
        var sawAndroid = false, sawApple = false
        var length = 0
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Word.longest) { word -> Platform? in
            // Whether the word just ended settles it as Windows Phone.
            func ended() -> Bool {
                let kind = length <= Word.longest ? Word(UnsafeBufferPointer(rebasing: word[0..<length])) : .other
                length = 0
                if kind == .windowsPhone || (previous == .windows && kind == .phone) { return true }
                if kind == .android { sawAndroid = true }
                if kind == .apple { sawApple = true }
                previous = kind
                return false
            }
            for byte in agent.utf8 {
                switch byte {
                case 0x41...0x5A, 0x61...0x7A, 0x30...0x39:
                    if length < Word.longest { word[length] = byte | 0x20 }  // lower case; digits keep their value
                    length += 1
                default:
                    if length > 0, ended() { return .windowsPhone }
                }
            }
            if length > 0, ended() { return .windowsPhone }
            return sawAndroid ? .android : sawApple ? .iOS : nil
        }
    }

    /// The words ``platform(_:)`` looks for (lower-cased ASCII letter-and-digit runs).
    private enum Word {
        case windowsPhone, windows, phone, android, apple, other

        static let longest = 12
        private static let names: [(String.UTF8View, Word)] = [
            ("windowsphone".utf8, .windowsPhone), ("windows".utf8, .windows), ("phone".utf8, .phone),
            ("android".utf8, .android), ("ios".utf8, .apple), ("iphone".utf8, .apple), ("ipad".utf8, .apple),
            ("ipod".utf8, .apple), ("ipados".utf8, .apple), ("iphoneos".utf8, .apple),
        ]

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self = Self.names.first { $0.0.elementsEqual(bytes) }?.1 ?? .other
        }
    }

    /// The first locale-looking word (`en_US`, `nl-NL`), for a voice call in the device's language.
    static func language(_ agent: String) -> String? {
        for piece in agent.split(whereSeparator: { $0 == " " || $0 == ";" || $0 == "(" || $0 == ")" || $0 == "/" }) {
            let bytes = Array(piece.utf8)
            guard bytes.count == 5, bytes[2] == UInt8(ascii: "_") || bytes[2] == UInt8(ascii: "-") else { continue }
            let lower = bytes[0..<2].allSatisfy { (0x61...0x7A).contains($0) }
            let upper = bytes[3..<5].allSatisfy { (0x41...0x5A).contains($0) }
            if lower && upper { return String(piece) }
        }
        return nil
    }
}
