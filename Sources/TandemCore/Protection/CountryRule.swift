/// Which regions an SMS may go to: anywhere, only the listed ones (`allow`), or anywhere but the listed
/// ones (`deny`). An allow list is the safer shape (Twilio's geo permissions, AWS's protect
/// configurations): a region nobody thought of is refused, including ``RegionCode/unknown`` and
/// ``RegionCode/nonGeographic`` unless listed.
public enum CountryRule: Sendable, Hashable {
    case anywhere
    case allow(Set<RegionCode>)
    case deny(Set<RegionCode>)

    public func permits(_ region: RegionCode) -> Bool {
        switch self {
        case .anywhere: true
        case .allow(let regions): regions.contains(region)
        case .deny(let regions): !regions.contains(region)
        }
    }
}
