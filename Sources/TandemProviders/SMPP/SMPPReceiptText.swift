/// The fields of a delivery receipt's text (SMPP 3.4 Appendix B), which most SMSCs send in
/// `short_message` whether or not they also send the TLVs:
///
///     id:0123456789 sub:001 dlvrd:001 submit date:2401011200 done date:2401011201 stat:DELIVRD err:000 text:Hello
///
/// Keys are matched case-insensitively at the start of the text or after a space, and only before
/// `text:` (the original message's first characters, which may contain anything). A value runs to the
/// next space. The id is kept exactly as written (SMSCs differ on hex and decimal).
///
/// Only `id`, `stat` and `err` are read; dates, `sub` and `dlvrd` are not needed. Not guaranteed: that the
/// id matches the `submit_sm_resp` id character for character — some SMSCs write it in another base.
struct SMPPReceiptText: Sendable, Hashable {
    let id: String
    let stat: String?
    let err: String?

    /// Nil when there is no `id:` with a value.
    static func parse(_ text: String) -> SMPPReceiptText? {
        let bytes = Array(text.utf8)
        let lower = bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        let end = find(Array("text:".utf8), in: lower, before: lower.count) ?? lower.count
        func value(_ key: String) -> String? {
            let keyBytes = Array(key.utf8)
            guard let start = find(keyBytes, in: lower, before: end) else { return nil }
            let valueStart = start + keyBytes.count
            var valueEnd = valueStart
            while valueEnd < end, bytes[valueEnd] != 0x20, bytes[valueEnd] != 0x0A, bytes[valueEnd] != 0x0D {
                valueEnd += 1
            }
            guard valueEnd > valueStart else { return nil }
            return String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
        }
        guard let id = value("id:") else { return nil }
        return SMPPReceiptText(id: id, stat: value("stat:"), err: value("err:"))
    }

    /// The first occurrence of `key` in `bytes[..<limit]` at the start or after a space.
    private static func find(_ key: [UInt8], in bytes: [UInt8], before limit: Int) -> Int? {
        guard key.count <= limit else { return nil }
        var index = 0
        while index + key.count <= limit {
            if (index == 0 || bytes[index - 1] == 0x20), bytes[index..<index + key.count].elementsEqual(key) {
                return index
            }
            index += 1
        }
        return nil
    }
}
