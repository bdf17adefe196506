import TandemCore

extension HTTPClientResponse {
    /// The body as one line of text for errors and logs: control characters as spaces, at most 200
    /// characters, `secret` (when at least 3 characters) replaced by `****` should the server echo it,
    /// `(no body)` when empty. Not guaranteed: that the body was text (bytes are read as UTF-8).
    func bodyExcerpt(hiding secret: String? = nil) -> String {
        let text = String(decoding: body.prefix(400), as: UTF8.self)
        var line = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
            .trimmingASCIISpaces()
        if let secret, secret.count >= 3 { line = line.replacing(secret, with: "****") }
        if line.isEmpty { return "(no body)" }
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}
