/// A minimal XML 1.0 reader for MESSAGES request bodies: elements, attributes, text, CDATA, comments and
/// processing instructions; nothing else.
///
/// Safe by construction against entity attacks: there is no DTD support at all. Any `<!DOCTYPE`,
/// `<!ENTITY` or other `<!…>` declaration is an error (so no external entities, no XXE, no entity
/// expansion, no billion laughs), and the only entity references are the five predefined ones
/// (`&lt; &gt; &amp; &quot; &apos;`) and numeric character references; any other `&name;` is an error.
///
/// Guaranteed: the input is valid UTF-8 (a leading byte order mark is skipped; the declared `encoding` is
/// ignored, since .NET clients often declare `utf-16` while sending UTF-8; whitespace before the
/// declaration is tolerated); tags are balanced and matched
/// exactly (case-sensitively, as XML requires); there is one root element and nothing but whitespace,
/// comments and processing instructions around it; nesting is at most `maximumDepth`, which also bounds the
/// parser's recursion; line ends in text are normalised to `\n` as XML specifies.
///
/// Left to the caller: C0 control characters other than tab, LF and CR in text and CDATA are kept, not
/// refused, although XML 1.0 does not allow them, so that the caller can say which field is at fault (CM's
/// codec refuses them: 304 in a message body, 202 anywhere else). In attribute values they are refused here,
/// and a character reference to one (`&#1;`) is refused as XML 1.0 says.
///
/// Bounded work: every byte is looked at a constant number of times, so a parse takes time linear in the
/// input whatever its shape (attribute names are checked for repeats through a `Set`, never by a scan). A
/// document with more than `maximumNodes` elements and attributes together, an element with more than
/// `maximumAttributes` attributes, or a name longer than `maximumNameLength` bytes is refused as soon as
/// the limit is passed, which also bounds the tree a request can make the server build (an element holds at
/// most one text node more than it holds elements).
/// Not done: namespaces (a prefixed name is just a name), validation against a schema.
enum MiniXML {
    static let maximumDepth = 16
    /// Elements and attributes in one document, together. A MESSAGES request of 2,000 `MSG` with 20 fields
    /// each, or 40 `MSG` with 1,000 `TO` each, stays under it.
    static let maximumNodes = 50_000
    /// Attributes on one element. CM's schema uses one (`BODY TYPE`); the rest is room for `xmlns` and the like.
    static let maximumAttributes = 32
    /// Bytes in an element, attribute or processing-instruction name (CM's longest is 27).
    static let maximumNameLength = 128

    struct Element: Sendable, Hashable {
        var name: String
        var attributes: [Attribute]
        var children: [Node]

        /// Child elements, in order.
        var elements: [Element] {
            children.compactMap { node in
                if case .element(let element) = node { element } else { nil }
            }
        }

        /// The concatenated text and CDATA directly inside this element.
        var text: String {
            children.reduce(into: "") { text, node in
                if case .text(let piece) = node { text += piece }
            }
        }

        /// The value of the attribute named `name`, ignoring ASCII case.
        func attribute(_ name: String) -> String? {
            attributes.first { ASCIICase.equal($0.name, name) }?.value
        }
    }

    struct Attribute: Sendable, Hashable {
        let name: String
        let value: String
    }

    enum Node: Sendable, Hashable {
        case element(Element)
        case text(String)
    }

    /// Where and why the document was refused.
    struct SyntaxError: Error, Sendable, Hashable {
        let offset: Int
        let problem: String
    }
}
