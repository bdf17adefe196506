import TandemCore

/// What the device API reads from an SDK's `User-Agent` (spec: "It should at least contain the mobile
/// platform (iOS, Android or WindowsPhone)"), e.g. `MyApp/1.0 (Android 6.0.1; LGE; Nexus 5X; en_US)`.
enum UserAgent {
    /// The platform the agent names, by word (case-insensitive): `WindowsPhone` or `Windows Phone` first
    /// (Windows Phone browsers also claim Android and iPhone), then `Android`, then `iOS`, `iPhone`,
    /// `iPad`, `iPod`, `iPadOS`. nil when it names none.
    static func platform(_ agent: String) -> Platform? {
        // Word by word over the UTF-8, without allocating (this runs on every request): each word's letters
        // are packed into two integers as they are read, and compared with the names packed the same way.
        var previous = Word.other
        var sawAndroid = false, sawApple = false
        var letters = Word.Letters()
        // Whether the word just ended settles it as Windows Phone.
        func ended() -> Bool {
            let kind = Word(letters)
            letters = Word.Letters()
            if kind == .windowsPhone || (previous == .windows && kind == .phone) { return true }
            if kind == .android { sawAndroid = true }
            if kind == .apple { sawApple = true }
            previous = kind
            return false
        }
        for byte in agent.utf8 {
            switch byte {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39:
                letters.append(byte | 0x20)  // lower case; digits keep their value
            default:
                if letters.count > 0, ended() { return .windowsPhone }
            }
        }
        if letters.count > 0, ended() { return .windowsPhone }
        return sawAndroid ? .android : sawApple ? .iOS : nil
    }

    /// The words ``platform(_:)`` looks for (lower-cased ASCII letter-and-digit runs).
    private enum Word {
        case windowsPhone, windows, phone, android, apple, other

        /// A word's first 16 bytes, little-endian in two integers, and its length.
        struct Letters: Equatable {
            var low: UInt64 = 0
            var high: UInt64 = 0
            var count = 0

            init() {}

            init(_ text: StaticString) {
                text.withUTF8Buffer { for byte in $0 { append(byte) } }
            }

            mutating func append(_ byte: UInt8) {
                if count < 8 {
                    low |= UInt64(byte) << (8 * count)
                } else if count < 16 {
                    high |= UInt64(byte) << (8 * (count - 8))
                }
                count += 1
            }
        }

        private static let names: [(Letters, Word)] = [
            (Letters("windowsphone"), .windowsPhone), (Letters("windows"), .windows), (Letters("phone"), .phone),
            (Letters("android"), .android), (Letters("ios"), .apple), (Letters("iphone"), .apple), (Letters("ipad"), .apple),
            (Letters("ipod"), .apple), (Letters("ipados"), .apple), (Letters("iphoneos"), .apple),
        ]

        /// Names are at most 12 letters: a longer word (whose packed form is cut at 16) is none of them.
        init(_ letters: Letters) {
            self = letters.count > 12 ? .other : Self.names.first { $0.0 == letters }?.1 ?? .other
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
