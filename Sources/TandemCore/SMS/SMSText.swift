/// Counting and cutting SMS text: which alphabet a text needs, how many parts, and the bytes of each part.
///
/// Example: `"Hello {name}"` is GSM-7, 14 septets (`{` and `}` take two each), one part; 161 plain
/// letters need two parts (153 + 8 septets); 80 × `€` is 160 septets, one part, while 81 × `€` is 162
/// septets, packed 76 + 5 pairs because the 77th pair would straddle septet 153.
///
/// Text is taken as given: it is not Unicode-normalised, so a decomposed `é` (e + U+0301) is not GSM-7 and
/// makes the whole text UCS-2. Parts are cut between Unicode scalars (an escape pair and a surrogate pair
/// are never split), not between grapheme clusters: a flag or a ZWJ emoji sequence may be cut, which handsets
/// reassemble correctly from the concatenated parts.
public enum SMSText {
    /// The alphabet, unit count and number of parts for `text`. `forceUCS2` (CM's `dcs` 8) sends even pure
    /// GSM-7 text as UCS-2. Any character outside GSM-7 makes the text UCS-2.
    public static func segmentation(of text: String, forceUCS2: Bool = false) -> SMSSegmentation {
        if !forceUCS2, let septets = encodeGSM7Unpacked(text) {
            let parts = partRanges(count: septets.count, alphabet: .gsm7) { septets[$0] == GSM7.escape ? 2 : 1 }
            return SMSSegmentation(alphabet: .gsm7, units: septets.count, parts: parts.count)
        }
        let units = Array(text.utf16)
        let parts = partRanges(count: units.count, alphabet: .ucs2) { isHighSurrogate(units[$0]) ? 2 : 1 }
        return SMSSegmentation(alphabet: .ucs2, units: units.count, parts: parts.count)
    }

    /// One byte per septet (unpacked, as SMPP carries `data_coding` 0), with ESC (0x1B) before each
    /// extension-table character; nil when a character is not in GSM-7.
    public static func encodeGSM7Unpacked(_ text: String) -> [UInt8]? {
        var septets: [UInt8] = []
        septets.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            guard GSM7.append(scalar, to: &septets) else { return nil }
        }
        return septets
    }

    /// The payload of each part, without user data headers: GSM-7 unpacked septets, or UTF-16 big-endian
    /// octets for UCS-2. A text that fits one part gives one element (an empty text gives one empty part).
    /// Nil when `alphabet` is `.gsm7` and the text is not GSM-7; UCS-2 can carry any text.
    ///
    /// `split(text, alphabet: s.alphabet)!.count == s.parts` for `s = segmentation(of: text, …)`.
    public static func split(_ text: String, alphabet: SMSAlphabet) -> [[UInt8]]? {
        switch alphabet {
        case .gsm7:
            guard let septets = encodeGSM7Unpacked(text) else { return nil }
            return partRanges(count: septets.count, alphabet: .gsm7) { septets[$0] == GSM7.escape ? 2 : 1 }
                .map { Array(septets[$0]) }
        case .ucs2:
            let units = Array(text.utf16)
            return partRanges(count: units.count, alphabet: .ucs2) { isHighSurrogate(units[$0]) ? 2 : 1 }
                .map { range in
                    var bytes: [UInt8] = []
                    bytes.reserveCapacity(range.count * 2)
                    for unit in units[range] {
                        bytes.append(UInt8(unit >> 8))
                        bytes.append(UInt8(unit & 0xFF))
                    }
                    return bytes
                }
        }
    }

    /// Cuts `count` units into parts by packing: a text within the single-part capacity is one part;
    /// otherwise parts of at most `multipartCapacity` units, an indivisible unit group (`groupLength(i)`
    /// units starting at `i`) moving whole to the next part when it would straddle the boundary.
    static func partRanges(count: Int, alphabet: SMSAlphabet, groupLength: (Int) -> Int) -> [Range<Int>] {
        guard count > alphabet.singlePartCapacity else { return [0..<count] }
        let capacity = alphabet.multipartCapacity
        var ranges: [Range<Int>] = []
        var start = 0
        var index = 0
        while index < count {
            let length = min(groupLength(index), count - index)
            if index + length - start > capacity {
                ranges.append(start..<index)
                start = index
            }
            index += length
        }
        ranges.append(start..<count)
        return ranges
    }

    @inline(__always)
    private static func isHighSurrogate(_ unit: UInt16) -> Bool { unit & 0xFC00 == 0xD800 }
}
