import Testing
@testable import TandemAPI

/// One query that must be refused, with a fragment of the message the app gets in the HTTP 400.
struct InvalidCase: Sendable, CustomTestStringConvertible {
    let pairs: [QueryPair]
    let message: String

    init(_ pairs: [QueryPair], _ message: String) {
        self.pairs = pairs
        self.message = message
    }

    static func filter(_ text: String, _ message: String) -> InvalidCase {
        InvalidCase([QueryPair("$filter", text)], message)
    }

    static func option(_ name: String, _ value: String, _ message: String) -> InvalidCase {
        InvalidCase([QueryPair(name, value)], message)
    }

    var testDescription: String {
        let query = pairs.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        return query.count > 80 ? String(query.prefix(80)) + "…" : query
    }
}

let invalidCases: [InvalidCase] = [
    // Options
    .option("$expand", "Body", "unsupported query option $expand"),
    .option("$format", "json", "unsupported query option $format"),
    .option("$inlinecount", "allpages", "unsupported query option $inlinecount"),
    .option("$search", "x", "unsupported query option $search"),
    .option("$Top", "5", "unsupported query option $Top; option names are case-sensitive: did you mean $top?"),
    InvalidCase([QueryPair("$top", "abc"), QueryPair("$expand", "x")], "unsupported query option $expand"),
    InvalidCase([QueryPair("$top", "5"), QueryPair("$top", "6")], "duplicate query option $top"),
    InvalidCase([QueryPair("$filter", "UpdateID eq 1"), QueryPair("$filter", "UpdateID eq 2")], "duplicate query option $filter"),
    .option("$top", "", "$top: empty value"),
    .option("$top", "-1", "$top: expected a non-negative integer, found '-1'"),
    .option("$top", "abc", "$top: expected a non-negative integer, found 'abc'"),
    .option("$skip", "99999999999999999999999", "$skip: '99999999999999999999999' is too large"),
    .option("$skip", "1.5", "$skip: expected a non-negative integer, found '1.5'"),
    .option("$orderby", " ", "$orderby: empty value"),
    .option("$orderby", "Body", "$orderby: field 'Body' cannot be ordered by at position 0; sortable fields: ID, UpdateID, Sender, DateTime"),
    .option("$orderby", "DateTime, Status desc", "$orderby: field 'Status' cannot be ordered by at position 10"),
    .option("$orderby", "Foo", "$orderby: unknown field 'Foo' at position 0"),
    .option("$orderby", "DateTime sideways", "$orderby: unknown direction 'sideways' at position 9; expected asc or desc"),
    .option("$orderby", "DateTime DESC", "$orderby: unknown direction 'DESC' at position 9; directions are lower case: desc"),
    .option("$orderby", "DateTime desc, DateTime asc", "$orderby: field 'DateTime' appears twice at position 15"),
    .option("$orderby", "DateTime,", "$orderby: empty item at position 9"),
    .option("$orderby", "DateTime desc ID", "$orderby: unexpected 'ID' at position 14; separate order items with commas"),
    .option("$orderby", "length(Body)", "$orderby: unsupported function 'length' at position 0"),
    .option("$select", "", "$select: empty value"),
    .option("$select", "ID,,Body", "$select: empty item at position 3"),
    .option("$select", "id", "$select: unknown field 'id' at position 0; did you mean 'ID'?"),
    .option("$select", "ID Body", "$select: unexpected 'Body' at position 3; separate fields with commas"),
    .option("$select", "Sender/Name", "$select: unsupported path 'Sender/Name' at position 0"),

    // $filter: empty, functions, operators
    .filter("", "$filter: empty value"),
    .filter(" + ", "$filter: empty value"),
    .filter("substringof('a',Body)", "$filter: unsupported function 'substringof' at position 0"),
    .filter("Sender eq 'x' and startswith (Sender, 'x')", "$filter: unsupported function 'startswith' at position 18"),
    .filter("UpdateID add 1 eq 2", "$filter: unsupported operator 'add' at position 9"),
    .filter("Status Eq 'Sent'", "$filter: unknown operator 'Eq' at position 7; operators are lower case: eq"),
    .filter("Status = 'Sent'", "$filter: unexpected character '=' at position 7; comparison operators are eq, ne, gt, ge, lt, le"),
    .filter("Sender eq \"CM\"", "$filter: unexpected character '\"' at position 10; string literals are in single quotes"),
    .filter("Sender/Name eq 'x'", "$filter: unexpected character '/' at position 6"),
    .filter("Status", "$filter: expected a comparison operator (eq, ne, gt, ge, lt, le), found the end of the filter at position 6"),
    .filter("Status eq", "$filter: expected a field or a literal, found the end of the filter at position 9"),
    .filter("Status eq 'Sent' and", "$filter: expected a field or a literal, found the end of the filter at position 20"),
    .filter("()", "$filter: expected a field or a literal, found ')' at position 1"),
    .filter("UpdateID eq 1 eq 2", "$filter: unexpected 'eq' at position 14; comparisons cannot be chained"),
    .filter("Status eq 'Sent' AND Sender eq 'CM'", "$filter: unexpected 'AND' at position 17; keywords are lower case: and"),
    .filter("not Status eq 'Sent'", "$filter: 'not' must be followed by a parenthesized expression at position 0"),
    .filter("Sender eq Sender", "$filter: comparing two fields is not supported at position 0"),
    .filter("1 eq 1", "$filter: comparing two literals is not supported at position 0"),

    // $filter: trailing garbage and parentheses
    .filter("Status eq 'Sent' foo", "$filter: unexpected 'foo' at position 17; expected and, or or the end of the filter"),
    .filter("(Status eq 'Sent'", "$filter: unbalanced parentheses: '(' is never closed at position 0"),
    .filter("Sender eq 'CM' and (Status eq 'Sent'", "$filter: unbalanced parentheses: '(' is never closed at position 19"),
    .filter("Status eq 'Sent')", "$filter: unbalanced parentheses: ')' has no matching '(' at position 16"),
    .filter("(Status eq 'Sent' 'x')", "$filter: unexpected literal 'x' at position 18; expected and, or or ')'"),
    .filter(String(repeating: "(", count: 65) + "UpdateID eq 1" + String(repeating: ")", count: 65),
            "$filter: nesting deeper than 64 levels at position 64"),
    .filter(Array(repeating: "UpdateID eq 1", count: 257).joined(separator: " or "),
            "$filter: more than 256 comparisons at position 4361"),

    // $filter: fields and type rules
    .filter("Body eq 'x'", "$filter: field 'Body' cannot be filtered at position 0; filterable fields: ID, UpdateID, Sender, DateTime, Status"),
    .filter("Recipient eq '0031612345678'", "$filter: field 'Recipient' cannot be filtered at position 0"),
    .filter("Foo eq 1", "$filter: unknown field 'Foo' at position 0"),
    .filter("datetime gt DateTime'2026-11-21T10:00:00'", "$filter: unknown field 'datetime' at position 0; did you mean 'DateTime'?"),
    .filter("DateTime eq '2026-11-21T10:00:00'", "$filter: cannot compare DateTime with a string literal at position 12"),
    .filter("DateTime eq guid'11111111-2dc9-45c4-aa58-a7f53e33c4f3'", "$filter: cannot compare DateTime with a guid literal at position 12"),
    .filter("Status gt 'Sent'", "$filter: Status cannot be compared with 'gt' at position 0; statuses have no order"),
    .filter("'Sent' le Status", "$filter: Status cannot be compared with 'ge' at position 10"),
    .filter("Status eq 'Read'", "$filter: unknown status 'Read' at position 10; statuses are Cancelled, Sent, Rejected, Accepted, Failed, Delivered"),
    .filter("Status eq 5", "$filter: cannot compare Status with an integer literal at position 10"),
    .filter("UpdateID eq '5a'", "$filter: UpdateID must be compared with a number, and '5a' is not one at position 12"),
    .filter("UpdateID eq datetime'2026-11-21T10:00:00'", "$filter: cannot compare UpdateID with a DateTime literal at position 12"),
    .filter("Sender eq 5", "$filter: cannot compare Sender with an integer literal at position 10"),
    .filter("Sender eq datetime'2026-11-21T10:00:00'", "$filter: cannot compare Sender with a DateTime literal at position 10"),
    .filter("ID eq 5", "$filter: cannot compare ID with an integer literal at position 6"),
    .filter("ID eq 'abc'", "$filter: ID must be compared with a GUID, and 'abc' is not one at position 6"),

    // $filter: literals
    .filter("Sender eq 'abc", "$filter: unterminated string literal at position 10"),
    .filter("Sender eq 'O'Reilly'", "$filter: unterminated string literal at position 19; close it with ' and write a quote inside it as ''"),
    .filter("Foo eq 'x' and Sender = 'y'", "$filter: unknown field 'Foo' at position 0"),
    .filter("Foo = 1", "$filter: unknown field 'Foo' at position 0"),
    // The CM SDK's "Filter example" as printed, without the closing quote.
    .filter("DateTime gt DateTime'2016-01-01T12:00:00.000", "$filter: unterminated string literal at position 20"),
    .filter("UpdateID eq 1.5", "$filter: unsupported numeric literal '1.5' at position 12; only integers are supported"),
    .filter("UpdateID eq 5M", "$filter: unsupported numeric literal '5M' at position 12"),
    .filter("UpdateID eq 99999999999999999999", "$filter: integer literal '99999999999999999999' is out of range at position 12"),
    .filter("Sender eq null", "$filter: unsupported literal 'null' at position 10"),
    .filter("Sender eq X'00'", "$filter: unsupported literal type 'X' at position 10"),
    .filter("DateTime gt datetimeoffset'2026-11-21T10:00:00Z'", "$filter: unsupported literal type 'datetimeoffset' at position 12"),
    .filter("DateTime gt DATETIME'2026-11-21T10:00:00'", "$filter: unsupported literal type 'DATETIME' at position 12"),
    .filter("ID eq guid'xyz'", "$filter: malformed guid literal guid'xyz' at position 6"),
    .filter("DateTime gt datetime'2026-11-21'", "$filter: malformed DateTime literal datetime'2026-11-21' at position 12"),
    .filter("DateTime gt datetime'2026-11-21 10:00:00'", "$filter: malformed DateTime literal"),
    .filter("DateTime gt datetime'2026-11-21T10:00:00.'", "$filter: malformed DateTime literal"),
    .filter("DateTime gt datetime'2026-11-21T10:00:00.12345678'", "$filter: malformed DateTime literal"),
    .filter("DateTime gt datetime'2026-11-21T10:00:00+0100'", "$filter: malformed DateTime literal"),
    .filter("DateTime gt datetime'2026-02-29T00:00:00'", "$filter: DateTime literal datetime'2026-02-29T00:00:00' is not a valid date and time at position 12"),
    .filter("DateTime gt datetime'2026-11-21T24:00:00'", "is not a valid date and time"),
    .filter("DateTime gt datetime'2026-11-21T10:00:60'", "is not a valid date and time"),
    .filter("DateTime gt datetime'2026-13-01T10:00:00'", "is not a valid date and time"),
    .filter("DateTime gt datetime'2026-11-21T10:00:00.1234'", "$filter: DateTime literal datetime'2026-11-21T10:00:00.1234' is more precise than a millisecond at position 12"),
]

@Suite("malformed and unsupported queries are refused with a precise message")
struct ParserInvalidTests {
    @Test("invalid query is refused", arguments: invalidCases)
    func refused(_ testCase: InvalidCase) {
        do {
            let query = try parse(testCase.pairs)
            Issue.record("parsed as \(query)")
        } catch {
            #expect(error.description.contains(testCase.message), "got: \(error.description)")
        }
    }

    @Test("the table has at least 25 invalid queries")
    func enoughCases() {
        #expect(invalidCases.count >= 25)
    }

    @Test("the error is typed and structured")
    func typedError() {
        #expect(throws: ODataError.unsupportedOption("$expand")) { try parse([QueryPair("$expand", "Body")]) }
        #expect(throws: ODataError.duplicateOption(.skip)) {
            try parse([QueryPair("$skip", "1"), QueryPair("$skip", "1")])
        }
        #expect(throws: ODataError.malformed(.filter, "unsupported function 'substringof'", position: 0)) {
            try parse([QueryPair("$filter", "substringof('a',Body)")])
        }
        #expect(ODataError.malformed(.top, "empty value", position: nil).message == "$top: empty value")
    }
}
