import TandemCore

/// What the device API reads from an SDK's `User-Agent` (spec: "It should at least contain the mobile
/// platform (iOS, Android or WindowsPhone)"), e.g. `MyApp/1.0 (Android 6.0.1; LGE; Nexus 5X; en_US)`.
enum UserAgent {
    /// The platform the agent names, by word (case-insensitive): `WindowsPhone` or `Windows Phone` first
    /// (Windows Phone browsers also claim Android and iPhone), then `Android`, then `iOS`, `iPhone`,
    /// `iPad`, `iPod`, `iPadOS`. nil when it names none.
    static func platform(_ agent: String) -> Platform? {
        let words = Self.words(agent)
        for (index, word) in words.enumerated() {
            if word == "windowsphone" || (word == "windows" && index + 1 < words.count && words[index + 1] == "phone") {
                return .windowsPhone
            }
        }
        if words.contains("android") { return .android }
        if words.contains(where: { ["ios", "iphone", "ipad", "ipod", "ipados", "iphoneos"].contains($0) }) { return .iOS }
        return nil
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

    /// The agent's ASCII letter-and-digit runs, lower-cased (byte by byte: this runs on every request).
    private static func words(_ agent: String) -> [String] {
        var words: [String] = []
        var word: [UInt8] = []
        word.reserveCapacity(16)
        for byte in agent.utf8 {
            switch byte {
            case 0x41...0x5A: word.append(byte | 0x20)
            case 0x61...0x7A, 0x30...0x39: word.append(byte)
            default:
                if !word.isEmpty {
                    words.append(String(decoding: word, as: UTF8.self))
                    word.removeAll(keepingCapacity: true)
                }
            }
        }
        if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
        return words
    }
}
