// libFuzzer harness: the device API's OData query (`QueryParameters`, then `ODataParser.parse`: lexer, filter
// parser, $orderby/$select/$top/$skip), and what a parsed query is used for: the SQL translation, the in-memory
// evaluator and the JSON rendering. Built and run by scripts/fuzz.sh; not part of the SwiftPM package.
import TandemAPI
import TandemCore
import TandemStore
import TandemHTTP

private let messages: [InboxMessage] = {
    guard let recipient = MSISDN("0031612345678") else { fatalError("bad MSISDN") }
    let rows: [(String, String, String?, Int64, DeliveryStatus)] = [
        ("11111111-2dc9-45c4-aa58-a7f53e33c4f3", "CM", "Your first message!", 1_795_770_000_000, .delivered),
        ("22222222-01ca-43f3-8d07-d3d91a675f14", "O'Reilly", nil, 1_795_771_800_500, .read),
        ("33333333-aaaa-4bbb-8ccc-dddddddddddd", "Ärzte 😀", "tie", 1_795_771_800_500, .failed),
        ("44444444-aaaa-4bbb-8ccc-dddddddddddd", "", "\"quoted\"\n", -1, .accepted),
    ]
    return rows.enumerated().map { index, row in
        guard let id = GUID(row.0) else { fatalError("bad GUID \(row.0)") }
        return InboxMessage(id: id, updateID: DeliveryKey(6_509_643_550 + Int64(index)), recipient: recipient,
                            sender: row.1, body: row.2, dateTime: Timestamp(milliseconds: row.3), status: row.4)
    }
}()

private let columns = ODataSQLColumns(id: "d.id", updateID: "d.update_id", sender: "d.sender", dateTime: "d.created_ms",
                                      status: "d.status")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOData(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let query = QueryParameters(rawQuery: String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
        guard let parsed = try? ODataParser.parse(query.map { (name: $0.name, value: $0.value) }, maxTop: 1000) else { return }
        _ = ODataSQL.translate(parsed, columns: columns)
        let selected = parsed.apply(to: messages)
        guard selected.count <= messages.count else { fatalError("the evaluator made messages up") }
        _ = parsed.renderJSON(selected)
    }
}
