extension SMPPClient {
    /// A snapshot of the client's binds and counters, for health checks, tests and benchmarks.
    /// Counters only grow; they are not reset by reconnects.
    public struct Status: Sendable, Hashable {
        /// Binds currently bound.
        public var boundBinds = 0
        /// `bind_transceiver` attempts (connect failures included), over all binds.
        public var bindAttempts = 0
        /// Binds that succeeded.
        public var bindsSucceeded = 0
        /// Why the latest failed attempt failed; nil until one fails. Not cleared by a later success.
        public var lastBindError: SMPPBindError?
        /// `submit_sm` PDUs written, resends included.
        public var submitsWritten = 0
        /// Of those, parts written again (after a throttle or a lost connection).
        public var resubmissions = 0
        /// Parts accepted with `submit_sm_resp` OK.
        public var partsAccepted = 0
        /// `ESME_RTHROTTLED`/`ESME_RMSGQFUL` responses.
        public var throttled = 0
        /// Parts handed back because their connection ended before the response.
        public var partsHandedBack = 0
        /// The most `submit_sm` ever in flight on one connection.
        public var maxInFlight = 0
        /// Delivery receipts handed to the report handler.
        public var receiptsReported = 0
        /// `deliver_sm` that were not receipts (mobile-originated), acknowledged and dropped.
        public var mobileOriginatedIgnored = 0
        /// `unbind_resp` received for this client's own `unbind` (clean shutdowns).
        public var unbindsAcknowledged = 0
    }
}
