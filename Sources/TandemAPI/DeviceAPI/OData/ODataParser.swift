import TandemCore

/// Parses the query of `GET /v1.0/messages` into an ``ODataQuery``: the OData v3 URL conventions
/// (chapter 5, as the spec points to) restricted to what the messages resource needs.
///
/// Input is the query's name–value pairs, already percent-decoded, in order. Parameters whose name does
/// not start with `$` are ignored; a `$`-name other than the five below is refused (`$expand`, `$format`,
/// `$inlinecount`, `$skiptoken`, `$search`, ...), as is any option given twice. Option names, field
/// names and keywords are case-sensitive, as OData spells them; the only leniencies are those the CM SDK's
/// own examples need: `DateTime'…'` beside `datetime'…'`, and `UpdateIDs` as a `$select` alias of
/// `UpdateID`. Status names in `$filter` match in any case.
///
/// A `+` outside quotes counts as a space in `$filter`, `$orderby` and `$select`, so it does not matter
/// whether the server decoded a form-style `+` into a space. Inside quotes nothing is re-interpreted,
/// except that a space where a `datetime` literal's offset sign belongs is read as `+`.
///
/// Grammar (EBNF; `ws` is any run of space, tab, CR, LF or `+`; keywords are whole words):
///
/// ```
/// $top, $skip = ws? digit { digit } ws? ;                          (* non-negative; $top capped *)
/// $select     = selectItem { "," selectItem } ;
/// selectItem  = ws? ( "*" | field | "UpdateIDs" ) ws? ;
/// $orderby    = orderItem { "," orderItem } ;
/// orderItem   = ws? sortField [ ws ( "asc" | "desc" ) ] ws? ;       (* each field at most once *)
/// $filter     = orExpr ;
/// orExpr      = andExpr { "or" andExpr } ;
/// andExpr     = unaryExpr { "and" unaryExpr } ;
/// unaryExpr   = "not" { "not" } "(" orExpr ")" | primary ;        (* not > comparison > and > or *)
/// primary     = "(" orExpr ")" | comparison ;
/// comparison  = operand compareOp operand ;          (* exactly one field, one literal; either order *)
/// compareOp   = "eq" | "ne" | "gt" | "ge" | "lt" | "le" ;
/// operand     = filterField | literal ;
/// literal     = string | integer | dateTime | guid ;
/// string      = "'" { char - "'" | "''" } "'" ;
/// integer     = [ "-" ] digit { digit } [ "L" | "l" ] ;             (* Int64 *)
/// dateTime    = ( "datetime" | "DateTime" ) "'" date "T" hh ":" mm [ ":" ss [ "." digit{1,7} ] ]
///               [ "Z" | ( "+" | "-" | " " ) hh ":" mm ] "'" ;      (* no zone = UTC *)
/// guid        = "guid" "'" hex{8} "-" hex{4} "-" hex{4} "-" hex{4} "-" hex{12} "'" ;
/// field       = "ID" | "UpdateID" | "Recipient" | "Sender" | "Body" | "DateTime" | "Status" ;
/// sortField   = "ID" | "UpdateID" | "Sender" | "DateTime" ;
/// filterField = "ID" | "UpdateID" | "Sender" | "DateTime" | "Status" ;
/// ```
///
/// Limits: at most 64 levels of parentheses and `not`, at most 256 comparisons.
///
/// Type rules: `ID` takes a `guid'…'` or a quoted GUID; `UpdateID` an integer; `Sender` a string;
/// `DateTime` a `datetime'…'`; `Status` a quoted status name and only `eq`/`ne`.
public enum ODataParser {
    /// Parses `pairs`; `maxTop` caps `$top` (a larger value is lowered to it, not refused).
    public static func parse(_ pairs: [(name: String, value: String)], maxTop: Int = 1000) throws(ODataError) -> ODataQuery {
        precondition(maxTop >= 0, "maxTop must not be negative")
        var values: [ODataOption: String] = [:]
        for pair in pairs where pair.name.hasPrefix("$") {
            guard let option = ODataOption(rawValue: pair.name) else { throw .unsupportedOption(pair.name) }
            guard values[option] == nil else { throw .duplicateOption(option) }
            values[option] = pair.value
        }
        var query = ODataQuery()
        for option in ODataOption.allCases {
            guard let value = values[option] else { continue }
            switch option {
            case .top: query.top = min(try count(value, option: .top), maxTop)
            case .skip: query.skip = try count(value, option: .skip)
            case .orderBy: query.orderBy = try orderBy(value)
            case .select: query.select = try select(value)
            case .filter: query.filter = try ODataFilterParser.parse(value)
            }
        }
        return query
    }

    // MARK: - $top and $skip

    private static func count(_ value: String, option: ODataOption) throws(ODataError) -> Int {
        let text = value.trimmingASCIISpaces()
        guard !text.isEmpty else { throw .malformed(option, "empty value", position: nil) }
        guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw .malformed(option, "expected a non-negative integer, found '\(text)'", position: nil)
        }
        guard let number = Int(text) else { throw .malformed(option, "'\(text)' is too large", position: nil) }
        return number
    }

    // MARK: - $orderby

    private static func orderBy(_ value: String) throws(ODataError) -> [ODataOrder] {
        var orders: [ODataOrder] = []
        for item in try ListItem.split(value, option: .orderBy) {
            let words = item.words
            let name = words[0]
            guard let field = ODataField.named(name.text) else {
                throw unknownName(name, option: .orderBy)
            }
            guard let sortField = field.sortField else {
                throw .malformed(.orderBy, "field '\(field.rawValue)' cannot be ordered by", position: name.position,
                                 hint: "sortable fields: \(ODataField.names { $0.sortField != nil })")
            }
            var direction = ODataOrder.Direction.ascending
            if words.count > 1 {
                let word = words[1]
                guard let parsed = ODataOrder.Direction(rawValue: word.text) else {
                    let lower = ODataOrder.Direction(rawValue: word.text.lowercased())
                    throw .malformed(.orderBy, "unknown direction '\(word.text)'", position: word.position,
                                     hint: lower.map { "directions are lower case: \($0.rawValue)" } ?? "expected asc or desc")
                }
                direction = parsed
            }
            if words.count > 2 {
                throw .malformed(.orderBy, "unexpected '\(words[2].text)'", position: words[2].position,
                                 hint: "separate order items with commas")
            }
            guard !orders.contains(where: { $0.field == sortField }) else {
                throw .malformed(.orderBy, "field '\(field.rawValue)' appears twice", position: name.position)
            }
            orders.append(ODataOrder(sortField, direction))
        }
        return orders
    }

    // MARK: - $select

    /// The alias the CM Android SDK's own example selects (`ID,Body,DateTime,Sender,UpdateIDs`).
    private static let updateIDsAlias = "UpdateIDs"

    private static func select(_ value: String) throws(ODataError) -> [ODataField]? {
        var chosen: Set<ODataField> = []
        var all = false
        for item in try ListItem.split(value, option: .select) {
            let words = item.words
            guard words.count == 1 else {
                throw .malformed(.select, "unexpected '\(words[1].text)'", position: words[1].position,
                                 hint: "separate fields with commas")
            }
            let name = words[0]
            if name.text == "*" {
                all = true
            } else if name.text == updateIDsAlias {
                chosen.insert(.updateID)
            } else if let field = ODataField.named(name.text) {
                chosen.insert(field)
            } else {
                throw unknownName(name, option: .select)
            }
        }
        return all ? nil : ODataField.allCases.filter(chosen.contains)
    }

    private static func unknownName(_ word: ListItem.Word, option: ODataOption) -> ODataError {
        if let parenthesis = word.text.firstIndex(of: "(") {
            return .malformed(option, "unsupported function '\(word.text[..<parenthesis])'", position: word.position)
        }
        if word.text.contains("/") {
            return .malformed(option, "unsupported path '\(word.text)'", position: word.position,
                              hint: "navigation paths are not supported")
        }
        return .malformed(option, "unknown field '\(word.text)'", position: word.position,
                          hint: ODataField.caseInsensitiveMatch(word.text).map { "did you mean '\($0.rawValue)'?" })
    }
}
