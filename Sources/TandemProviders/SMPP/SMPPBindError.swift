/// Why a bind did not come up (or the last bound connection ended), as `SMPPClient.Status` reports it.
public enum SMPPBindError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Name resolution or the TCP connect failed.
    case unreachable(String)
    /// The SMSC answered `bind_transceiver` with an error status (`ESME_RINVPASWD`, `ESME_RBINDFAIL`, …).
    case refused(SMPPCommandStatus)
    /// The connection ended, or a request went unanswered, before the bind completed.
    case connectionLost(String)

    public var description: String {
        switch self {
        case .unreachable(let reason): "SMSC unreachable: \(reason)"
        case .refused(let status): "bind_transceiver refused: \(status)"
        case .connectionLost(let reason): "connection lost while binding: \(reason)"
        }
    }
}
