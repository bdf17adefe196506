/// The channels a message may take (spec: "Allowed Channel").
///
/// `.all` when the sender named none. `.only` holds the supported channels the sender named; an empty set
/// means the sender named only channels Tandem does not carry (e.g. `WhatsApp`), which the router rejects.
public enum AllowedChannels: Sendable, Hashable {
    case all
    case only(Set<Channel>)

    public func allows(_ channel: Channel) -> Bool {
        switch self {
        case .all: true
        case .only(let channels): channels.contains(channel)
        }
    }
}
