/// A parsed, type-checked `$filter`: comparisons joined by `and`, `or` and `not`.
///
/// The tree mirrors the text: `a and b and c` is `.and(.and(a, b), c)` (both binary operators are
/// left-associative), and parentheses leave no node of their own. Built only by ``ODataParser`` in
/// practice, but every value is meaningful: a comparison carries a field-typed value, so an ill-typed
/// filter (`DateTime eq 'x'`, `Status gt 'Sent'`) cannot be represented.
public indirect enum ODataExpression: Sendable, Hashable {
    case comparison(ODataComparison)
    case and(ODataExpression, ODataExpression)
    case or(ODataExpression, ODataExpression)
    case not(ODataExpression)
}
