extension MiniXML {
    /// Parses a whole document and returns its root element.
    static func parse(_ input: [UInt8]) throws(SyntaxError) -> Element {
        guard String(validating: input, as: UTF8.self) != nil else {
            throw SyntaxError(offset: 0, problem: "the document is not valid UTF-8")
        }
        var parser = Parser(bytes: input)
        return try parser.parseDocument()
    }

    struct Parser {
        let bytes: [UInt8]
        var index = 0
        /// Elements and attributes read so far, against `MiniXML.maximumNodes`.
        var nodeCount = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func failure(_ problem: String) -> SyntaxError { SyntaxError(offset: index, problem: problem) }

        /// Whether the input continues with `text` at the index; allocates nothing.
        func starts(with text: StaticString) -> Bool {
            text.withUTF8Buffer { pattern in
                guard index + pattern.count <= bytes.count else { return false }
                for offset in 0..<pattern.count where bytes[index + offset] != pattern[offset] { return false }
                return true
            }
        }

        var atEnd: Bool { index >= bytes.count }

        mutating func skipWhitespace() {
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        }

        static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

        // MARK: Document

        mutating func parseDocument() throws(SyntaxError) -> Element {
            if starts(with: "\u{FEFF}") { index += 3 }  // the byte order mark, EF BB BF
            skipWhitespace()  // strictly an error before a declaration; harmless, and some clients send it
            if starts(with: "<?xml"), index + 5 < bytes.count, Self.isSpace(bytes[index + 5]) || bytes[index + 5] == UInt8(ascii: "?") {
                try skipProcessingInstruction(allowDeclaration: true)
            }
            try skipMisc(afterRoot: false)
            guard !atEnd else { throw failure("the document has no root element") }
            let root = try parseElement(depth: 1)
            try skipMisc(afterRoot: true)
            guard atEnd else { throw failure("content after the root element") }
            return root
        }

        /// Whitespace, comments and processing instructions; stops at the root element's `<` or the end.
        mutating func skipMisc(afterRoot: Bool) throws(SyntaxError) {
            while true {
                skipWhitespace()
                if atEnd { return }
                if starts(with: "<!--") {
                    try skipComment()
                } else if starts(with: "<?") {
                    try skipProcessingInstruction(allowDeclaration: false)
                } else if starts(with: "<!") {
                    throw declarationFailure()
                } else if afterRoot {
                    throw failure("content after the root element")
                } else if bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count, Self.isNameStart(bytes[index + 1]) {
                    return
                } else {
                    throw failure("text before the root element")
                }
            }
        }

        /// The refusal for anything starting `<!` that is not a comment or CDATA section.
        func declarationFailure() -> SyntaxError {
            if starts(with: "<!DOCTYPE") {
                return failure("DOCTYPE declarations are not accepted (no DTDs, no entities)")
            }
            if starts(with: "<!ENTITY") {
                return failure("ENTITY declarations are not accepted")
            }
            return failure("markup declarations (<!…>) are not accepted")
        }

        mutating func skipComment() throws(SyntaxError) {
            let start = index
            index += 4
            while index + 2 < bytes.count {
                if bytes[index] == UInt8(ascii: "-"), bytes[index + 1] == UInt8(ascii: "-"), bytes[index + 2] == UInt8(ascii: ">") {
                    index += 3
                    return
                }
                index += 1
            }
            throw SyntaxError(offset: start, problem: "unterminated comment")
        }

        /// `<?target …?>`; the target `xml` (any casing) is only allowed as the declaration at the very start.
        mutating func skipProcessingInstruction(allowDeclaration: Bool) throws(SyntaxError) {
            let start = index
            index += 2
            let targetStart = index
            try skipName()
            let target = bytes[targetStart..<index]
            if !allowDeclaration, target.count == 3, target.elementsEqual("xml".utf8, by: { $0 | 0x20 == $1 }) {
                index = start
                throw failure("an XML declaration is only allowed at the start of the document")
            }
            while index + 1 < bytes.count {
                if bytes[index] == UInt8(ascii: "?"), bytes[index + 1] == UInt8(ascii: ">") {
                    index += 2
                    return
                }
                index += 1
            }
            throw SyntaxError(offset: start, problem: "unterminated processing instruction")
        }

        // MARK: Elements

        static func isNameStart(_ byte: UInt8) -> Bool {
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ":") || byte >= 0x80
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            isNameStart(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }

        mutating func parseName() throws(SyntaxError) -> String {
            let start = index
            try skipName()
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// Moves past a name of at most `MiniXML.maximumNameLength` bytes.
        mutating func skipName() throws(SyntaxError) {
            let start = index
            guard index < bytes.count, Self.isNameStart(bytes[index]) else { throw failure("expected a name") }
            while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
            guard index - start <= MiniXML.maximumNameLength else {
                index = start
                throw failure("a name is longer than \(MiniXML.maximumNameLength) bytes")
            }
        }

        /// An element starting at its `<`; the index ends after its end tag.
        mutating func parseElement(depth: Int) throws(SyntaxError) -> Element {
            guard depth <= MiniXML.maximumDepth else {
                throw failure("elements are nested deeper than \(MiniXML.maximumDepth) levels")
            }
            try countNode()
            let start = index
            index += 1
            let name = try parseName()
            var element = Element(name: name, attributes: [], children: [])
            var attributeNames = Set<String>()
            while true {
                let hadSpace = index < bytes.count && Self.isSpace(bytes[index])
                skipWhitespace()
                guard !atEnd else { throw SyntaxError(offset: start, problem: "element <\(name)> is not closed") }
                if starts(with: "/>") {
                    index += 2
                    return element
                }
                if bytes[index] == UInt8(ascii: ">") {
                    index += 1
                    break
                }
                guard hadSpace else { throw failure("expected whitespace, '>' or '/>' in <\(name)>") }
                guard element.attributes.count < MiniXML.maximumAttributes else {
                    throw failure("<\(name)> has more than \(MiniXML.maximumAttributes) attributes")
                }
                try countNode()
                let attribute = try parseAttribute()
                guard attributeNames.insert(attribute.name).inserted else {
                    throw failure("attribute \(attribute.name) appears twice in <\(name)>")
                }
                element.attributes.append(attribute)
            }
            try parseContent(of: &element, depth: depth, start: start)
            return element
        }

        /// One more element or attribute; refused past `MiniXML.maximumNodes`.
        mutating func countNode() throws(SyntaxError) {
            nodeCount += 1
            guard nodeCount <= MiniXML.maximumNodes else {
                throw failure("the document has more than \(MiniXML.maximumNodes) elements and attributes")
            }
        }

        mutating func parseAttribute() throws(SyntaxError) -> Attribute {
            let name = try parseName()
            skipWhitespace()
            guard !atEnd, bytes[index] == UInt8(ascii: "=") else { throw failure("expected '=' after attribute \(name)") }
            index += 1
            skipWhitespace()
            guard !atEnd, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                throw failure("expected a quoted value for attribute \(name)")
            }
            let quote = bytes[index]
            index += 1
            var value: [UInt8] = []
            while true {
                guard !atEnd else { throw failure("unterminated value of attribute \(name)") }
                let byte = bytes[index]
                if byte == quote {
                    index += 1
                    return Attribute(name: name, value: String(decoding: value, as: UTF8.self))
                }
                switch byte {
                case UInt8(ascii: "<"): throw failure("'<' in the value of attribute \(name)")
                case UInt8(ascii: "&"): try appendReference(to: &value)
                case 0x09, 0x0A, 0x0D: value.append(0x20); index += 1
                case 0x00..<0x20: throw failure("control character in the value of attribute \(name)")
                default: value.append(byte); index += 1
                }
            }
        }
    }
}
