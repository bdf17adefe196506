import TandemCore

/// CM's `validity` (ISO 8601 text with an explicit zone, or a span such as `30m`, `2h`, `1h30m`, `2d`):
/// the intake's ``MessageValidity`` under CM's name; the CM text forms are in `CMValidity+Parsing.swift`.
public typealias CMValidity = MessageValidity
