/// A system query option that `GET /v1.0/messages` understands; the raw value is its name on the wire.
/// Names are case-sensitive, as in OData v3 (`$top`, not `$Top`).
public enum ODataOption: String, Sendable, Hashable, CaseIterable {
    case top = "$top"
    case skip = "$skip"
    case orderBy = "$orderby"
    case select = "$select"
    case filter = "$filter"
}
