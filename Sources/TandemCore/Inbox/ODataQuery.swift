/// A parsed OData query for `GET /v1.0/messages`: what ``ODataParser`` makes of `$top`, `$skip`,
/// `$orderby`, `$select` and `$filter`, applied either in memory (``apply(to:)``) or pushed down to SQL
/// (``ODataSQL/translate(_:columns:)``) with the same result.
///
/// The order of application is OData's: filter, then order, then skip, then top.
///
/// Worked example: `$filter=Status eq 'Delivered' and DateTime ge datetime'2026-11-21T10:00:00'`,
/// `$orderby=Sender`, `$skip=10`, `$top=5` keeps the delivered messages from 10:00 UTC on, orders them by
/// sender and then by ID (the tie-breaker), drops the first ten and returns the next five.
///
/// Not guaranteed: a total order when two messages share an ID (IDs are unique per recipient in the
/// store; the tie-breaker relies on it).
public struct ODataQuery: Sendable, Hashable {
    /// `$top`, already capped at the parser's `maxTop`; nil when the app gave none (the spec's "all
    /// messages" — bound the result elsewhere if that is too many).
    public var top: Int?
    /// `$skip`; 0 when absent.
    public var skip: Int
    /// `$orderby` as given; empty when absent (``effectiveOrder`` then supplies the default).
    public var orderBy: [ODataOrder]
    /// `$select` in rendering order (``ODataField/allCases`` order) without duplicates; nil for all
    /// fields (no `$select`, or `$select=*`).
    public var select: [ODataField]?
    /// `$filter`; nil when absent.
    public var filter: ODataExpression?

    public init(top: Int? = nil, skip: Int = 0, orderBy: [ODataOrder] = [], select: [ODataField]? = nil,
                filter: ODataExpression? = nil) {
        self.top = top
        self.skip = skip
        self.orderBy = orderBy
        self.select = select
        self.filter = filter
    }

    /// The order when the app gives no `$orderby`: newest first.
    public static let defaultOrder: [ODataOrder] = [.descending(.dateTime)]

    /// The order actually applied: `orderBy` (or ``defaultOrder`` when empty), then `ID asc` as a
    /// tie-breaker unless `ID` is already a key, so that `$skip`/`$top` pages are stable.
    public var effectiveOrder: [ODataOrder] {
        var order = orderBy.isEmpty ? Self.defaultOrder : orderBy
        if !order.contains(where: { $0.field == .id }) {
            order.append(.ascending(.id))
        }
        return order
    }

    /// The fields a rendered message carries, in rendering order.
    public var renderedFields: [ODataField] { select ?? ODataField.allCases }
}
