extension MiniXML.Parser {
    /// Children of `element` up to and including its end tag.
    mutating func parseContent(of element: inout MiniXML.Element, depth: Int, start: Int) throws(MiniXML.SyntaxError) {
        var text: [UInt8] = []
        func flush(_ text: inout [UInt8], into element: inout MiniXML.Element) {
            guard !text.isEmpty else { return }
            element.children.append(.text(String(decoding: text, as: UTF8.self)))
            text.removeAll(keepingCapacity: true)
        }
        while true {
            guard !atEnd else { throw MiniXML.SyntaxError(offset: start, problem: "element <\(element.name)> is not closed") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if starts(with: "</") {
                    flush(&text, into: &element)
                    index += 2
                    let name = try parseName()
                    guard name == element.name else {
                        throw failure("end tag </\(name)> does not match <\(element.name)>")
                    }
                    skipWhitespace()
                    guard !atEnd, bytes[index] == UInt8(ascii: ">") else { throw failure("expected '>' in </\(name)>") }
                    index += 1
                    return
                } else if starts(with: "<!--") {
                    try skipComment()
                } else if starts(with: "<![CDATA[") {
                    try appendCDATA(to: &text)
                } else if starts(with: "<!") {
                    throw declarationFailure()
                } else if starts(with: "<?") {
                    try skipProcessingInstruction(allowDeclaration: false)
                } else {
                    flush(&text, into: &element)
                    element.children.append(.element(try parseElement(depth: depth + 1)))
                }
            } else if byte == UInt8(ascii: "&") {
                try appendReference(to: &text)
            } else if byte == 0x0D {
                // XML end-of-line handling: CR LF and a lone CR both become LF.
                text.append(0x0A)
                index += 1
                if !atEnd, bytes[index] == 0x0A { index += 1 }
            } else {
                // A run of ordinary bytes goes in with one copy.
                let run = index
                index += 1
                while index < bytes.count, Self.isPlainTextByte(bytes[index]) { index += 1 }
                text.append(contentsOf: bytes[run..<index])
            }
        }
    }

    /// A byte of text that needs no handling of its own: not `<`, `&` or CR.
    static func isPlainTextByte(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: "<") && byte != UInt8(ascii: "&") && byte != 0x0D
    }

    mutating func appendCDATA(to text: inout [UInt8]) throws(MiniXML.SyntaxError) {
        let start = index
        index += 9
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "]"), bytes[index + 1] == UInt8(ascii: "]"), bytes[index + 2] == UInt8(ascii: ">") {
                index += 3
                return
            }
            if bytes[index] == 0x0D {
                text.append(0x0A)
                if bytes[index + 1] == 0x0A { index += 1 }
            } else {
                text.append(bytes[index])
            }
            index += 1
        }
        throw MiniXML.SyntaxError(offset: start, problem: "unterminated CDATA section")
    }

    /// `&lt; &gt; &amp; &quot; &apos; &#NNN; &#xHHH;` at the index; anything else is refused. Looks at most
    /// 16 bytes ahead, and allocates only for the text of an error.
    mutating func appendReference(to text: inout [UInt8]) throws(MiniXML.SyntaxError) {
        let start = index
        var semicolon = index + 1
        while semicolon < min(index + 16, bytes.count), bytes[semicolon] != UInt8(ascii: ";") { semicolon += 1 }
        guard semicolon < min(index + 16, bytes.count) else {
            throw failure("'&' must start an entity reference such as &amp;")
        }
        let body = bytes[(index + 1)..<semicolon]
        if let predefined = Self.predefinedEntity(body) {
            text.append(predefined)
        } else {
            guard body.first == UInt8(ascii: "#") else {
                throw MiniXML.SyntaxError(offset: start, problem:
                    "undefined entity &\(String(decoding: body, as: UTF8.self)); (only &lt; &gt; &amp; &quot; &apos; and &#…; are accepted)")
            }
            let hex = body.count > 1 && body[body.startIndex + 1] == UInt8(ascii: "x")
            let digits = body.dropFirst(hex ? 2 : 1)
            var value: UInt32 = 0
            var valid = !digits.isEmpty
            for digit in digits where valid {
                guard let digitValue = Self.digitValue(digit, hex: hex) else { valid = false; break }
                value = value &* (hex ? 16 : 10) &+ digitValue  // at most 13 digits: checked against 0x10FFFF below
                if value > 0x10FFFF { valid = false }
            }
            guard valid, let scalar = Unicode.Scalar(value), Self.isXMLChar(value) else {
                throw MiniXML.SyntaxError(offset: start, problem:
                    "invalid character reference &\(String(decoding: body, as: UTF8.self));")
            }
            UTF8.encode(scalar) { text.append($0) }
        }
        index = semicolon + 1
    }

    /// The byte for `lt gt amp quot apos`; nil for any other name (including other casings).
    static func predefinedEntity(_ name: ArraySlice<UInt8>) -> UInt8? {
        let i = name.startIndex
        switch name.count {
        case 2 where name[i + 1] == UInt8(ascii: "t"):
            if name[i] == UInt8(ascii: "l") { return UInt8(ascii: "<") }
            if name[i] == UInt8(ascii: "g") { return UInt8(ascii: ">") }
            return nil
        case 3:
            return name[i] == UInt8(ascii: "a") && name[i + 1] == UInt8(ascii: "m") && name[i + 2] == UInt8(ascii: "p")
                ? UInt8(ascii: "&") : nil
        case 4:
            if name.elementsEqual("quot".utf8) { return UInt8(ascii: "\"") }
            if name.elementsEqual("apos".utf8) { return UInt8(ascii: "'") }
            return nil
        default:
            return nil
        }
    }

    /// A decimal digit's value, or with `hex` a hexadecimal digit's (either case); nil for anything else.
    static func digitValue(_ byte: UInt8, hex: Bool) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// XML 1.0 `Char`: tab, LF, CR, and U+0020 and above except surrogates, U+FFFE and U+FFFF.
    static func isXMLChar(_ value: UInt32) -> Bool {
        value == 0x09 || value == 0x0A || value == 0x0D || (0x20...0xD7FF).contains(value)
            || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
    }
}
