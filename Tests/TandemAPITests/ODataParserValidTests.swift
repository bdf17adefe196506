import Testing
@testable import TandemAPI
import TandemCore

/// One query that must parse, with the AST it must parse to.
struct ValidCase: Sendable, CustomTestStringConvertible {
    let pairs: [QueryPair]
    let maxTop: Int
    let expected: ODataQuery

    init(_ pairs: [QueryPair], maxTop: Int = 1000, _ expected: ODataQuery) {
        self.pairs = pairs
        self.maxTop = maxTop
        self.expected = expected
    }

    /// A query with only `$filter`.
    static func filter(_ text: String, _ expected: ODataExpression) -> ValidCase {
        ValidCase([QueryPair("$filter", text)], ODataQuery(filter: expected))
    }

    var testDescription: String { pairs.map { "\($0.name)=\($0.value)" }.joined(separator: "&") }
}

struct QueryPair: Sendable {
    let name: String
    let value: String
    init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

func parse(_ pairs: [QueryPair], maxTop: Int = 1000) throws(ODataError) -> ODataQuery {
    try ODataParser.parse(pairs.map { (name: $0.name, value: $0.value) }, maxTop: maxTop)
}

private let statusSent = ODataExpression.status(.eq, .sent)
private let senderCM = ODataExpression.sender(.eq, "CM")
private let update5 = ODataExpression.updateID(.gt, 5)

let validCases: [ValidCase] = [
    // Options other than $filter
    ValidCase([], ODataQuery()),
    ValidCase([QueryPair("foo", "bar"), QueryPair("$top", "5"), QueryPair("appKey", "$expand")], ODataQuery(top: 5)),
    ValidCase([QueryPair("$top", "0")], ODataQuery(top: 0)),
    ValidCase([QueryPair("$top", "5000")], ODataQuery(top: 1000)),
    ValidCase([QueryPair("$top", "50")], maxTop: 20, ODataQuery(top: 20)),
    ValidCase([QueryPair("$top", " 7 ")], ODataQuery(top: 7)),
    ValidCase([QueryPair("$skip", "10")], ODataQuery(skip: 10)),
    ValidCase([QueryPair("$orderby", "DateTime")], ODataQuery(orderBy: [.ascending(.dateTime)])),
    ValidCase([QueryPair("$orderby", "DateTime desc")], ODataQuery(orderBy: [.descending(.dateTime)])),
    ValidCase([QueryPair("$orderby", "Sender asc, UpdateID desc,ID")],
              ODataQuery(orderBy: [.ascending(.sender), .descending(.updateID), .ascending(.id)])),
    ValidCase([QueryPair("$orderby", "DateTime+desc,+ID")], ODataQuery(orderBy: [.descending(.dateTime), .ascending(.id)])),
    ValidCase([QueryPair("$select", "ID,Body")], ODataQuery(select: [.id, .body])),
    ValidCase([QueryPair("$select", "Status, DateTime ,ID,ID")], ODataQuery(select: [.id, .dateTime, .status])),
    ValidCase([QueryPair("$select", "*")], ODataQuery(select: nil)),
    ValidCase([QueryPair("$select", "Recipient,*")], ODataQuery(select: nil)),
    // The CM Android SDK's own "Filter example" (with its missing closing quote restored).
    ValidCase([QueryPair("$select", "ID,Body,DateTime,Sender,UpdateIDs"), QueryPair("$skip", "10"), QueryPair("$top", "5"),
               QueryPair("$filter", "DateTime gt DateTime'2016-01-01T12:00:00.000'")],
              ODataQuery(top: 5, skip: 10, select: [.id, .updateID, .sender, .body, .dateTime],
                         filter: .dateTime(.gt, "2016-01-01T12:00:00.000Z"))),

    // Every operator, every literal type
    .filter("Status eq 'Sent'", statusSent),
    .filter("Status ne 'delivered'", .status(.ne, .delivered)),
    .filter("Status eq ' CANCELLED '", .status(.eq, .cancelled)),
    .filter("Sender gt 'A'", .sender(.gt, "A")),
    .filter("Sender ge 'O''Reilly'", .sender(.ge, "O'Reilly")),
    .filter("Sender lt ''''''", .sender(.lt, "''")),
    .filter("Sender le ''", .sender(.le, "")),
    .filter("Sender eq 'Ärzte 😀'", .sender(.eq, "Ärzte 😀")),
    .filter("Sender eq 'a+b'", .sender(.eq, "a+b")),
    .filter("UpdateID lt 6509643555", .updateID(.lt, 6_509_643_555)),
    .filter("UpdateID eq '6509643555'", .updateID(.eq, 6_509_643_555)),  // as the API hands it out: a JSON string
    .filter("UpdateID le -3L", .updateID(.le, -3)),
    .filter("UpdateID ne 9223372036854775807", .updateID(.ne, Int64.max)),
    .filter("ID eq guid'11111111-2DC9-45c4-aa58-a7f53e33c4f3'", .id(.eq, Fixtures.g1)),
    .filter("ID ne '\(Fixtures.upperG3)'", .id(.ne, Fixtures.g3)),
    .filter("ID gt guid'22222222-01ca-43f3-8d07-d3d91a675f14'", .id(.gt, Fixtures.g2)),
    .filter("DateTime ge datetime'2026-11-21T10:00:00'", .dateTime(.ge, "2026-11-21T10:00:00Z")),
    .filter("DateTime lt DateTime'2026-11-21T10:00:00.5Z'", .dateTime(.lt, "2026-11-21T10:00:00.500Z")),
    .filter("DateTime le datetime'2026-11-21T10:00'", .dateTime(.le, "2026-11-21T10:00:00Z")),
    .filter("DateTime gt datetime'2026-11-21T10:00:00.1230000'", .dateTime(.gt, "2026-11-21T10:00:00.123Z")),
    .filter("DateTime eq datetime'2026-11-21T11:00:00+01:00'", .dateTime(.eq, "2026-11-21T10:00:00Z")),
    .filter("DateTime eq datetime'2026-11-21T11:00:00 01:00'", .dateTime(.eq, "2026-11-21T10:00:00Z")),
    .filter("DateTime eq datetime'2026-11-21T05:30:00-04:30'", .dateTime(.eq, "2026-11-21T10:00:00Z")),
    .filter("DateTime eq datetime'2024-02-29t23:59:59.999z'", .dateTime(.eq, "2024-02-29T23:59:59.999Z")),
    .filter("DateTime eq datetime'1969-12-31T23:59:59.999'", .comparison(.dateTime(.eq, Timestamp(milliseconds: -1)))),
    // Literal on the left: the operator flips
    .filter("5 lt UpdateID", .updateID(.gt, 5)),
    .filter("'Sent' eq Status", statusSent),
    .filter("datetime'2026-11-21T10:00:00' ge DateTime", .dateTime(.le, "2026-11-21T10:00:00Z")),

    // Precedence, associativity, parentheses
    .filter("Status eq 'Sent' or Sender eq 'CM' and UpdateID gt 5", .or(statusSent, .and(senderCM, update5))),
    .filter("Status eq 'Sent' and Sender eq 'CM' or UpdateID gt 5", .or(.and(statusSent, senderCM), update5)),
    .filter("(Status eq 'Sent' or Sender eq 'CM') and UpdateID gt 5", .and(.or(statusSent, senderCM), update5)),
    .filter("Status eq 'Sent' and Sender eq 'CM' and UpdateID gt 5", .and(.and(statusSent, senderCM), update5)),
    .filter("Status eq 'Sent' or Sender eq 'CM' or UpdateID gt 5", .or(.or(statusSent, senderCM), update5)),
    .filter("not (Status eq 'Sent') and Sender eq 'CM'", .and(.not(statusSent), senderCM)),
    .filter("not(Status eq 'Sent' or Sender eq 'CM')", .not(.or(statusSent, senderCM))),
    .filter("not not (Status eq 'Sent')", .not(.not(statusSent))),
    .filter("((Status eq 'Sent'))", statusSent),
    .filter("Status+eq+'Sent'+and+Sender+eq+'CM'", .and(statusSent, senderCM)),
    .filter(" \tStatus  eq\n'Sent' ", statusSent),
]

@Suite("$-options parse into the expected AST")
struct ParserValidTests {
    @Test("valid query parses", arguments: validCases)
    func parses(_ testCase: ValidCase) throws {
        #expect(try parse(testCase.pairs, maxTop: testCase.maxTop) == testCase.expected)
    }

    @Test("the table has at least 25 valid queries")
    func enoughCases() {
        #expect(validCases.count >= 25)
    }

    @Test("256 comparisons and 64 levels of nesting are still accepted")
    func limitsAreInclusive() throws {
        let chain = Array(repeating: "UpdateID eq 1", count: 256).joined(separator: " or ")
        #expect(try parse([QueryPair("$filter", chain)]).filter != nil)
        let nested = String(repeating: "(", count: 64) + "UpdateID eq 1" + String(repeating: ")", count: 64)
        #expect(try parse([QueryPair("$filter", nested)]).filter == .updateID(.eq, 1))
    }

    @Test("effective order appends ID as the tie-breaker and defaults to newest first")
    func effectiveOrder() {
        #expect(ODataQuery().effectiveOrder == [.descending(.dateTime), .ascending(.id)])
        #expect(ODataQuery(orderBy: [.ascending(.sender)]).effectiveOrder == [.ascending(.sender), .ascending(.id)])
        #expect(ODataQuery(orderBy: [.descending(.id), .ascending(.sender)]).effectiveOrder
                == [.descending(.id), .ascending(.sender)])
    }
}
