/// Which of the three MESSAGES forms a request came in.
///
/// - `json`: `POST /v1.0/message` with `{"messages": {...}}`; the response is a JSON body.
/// - `xml`: `POST /gateway.ashx` with `<MESSAGES>`; success is HTTP 200 with an empty body.
/// - `get`: `GET /gateway.ashx?producttoken=…&body=…&to=…&from=…`; one message; success as for XML.
public enum CMRequestFormat: Sendable, Hashable, CaseIterable {
    case json
    case xml
    case get
}
