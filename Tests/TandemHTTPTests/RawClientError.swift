/// Errors from the raw test client.
enum RawClientError: Error, Equatable {
    case connectFailed(errno: Int32)
    case sendFailed(errno: Int32)
    case receiveFailed(errno: Int32)
    case closedByPeer
    case malformed(String)
}
