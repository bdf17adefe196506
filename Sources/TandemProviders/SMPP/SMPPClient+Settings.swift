extension SMPPClient {
    /// Everything the client needs to reach one SMSC account, fixed for its lifetime. Checked by `init`.
    public struct Settings: Sendable {
        public var host: String
        public var port: Int
        /// `system_id`: at most 15 ASCII characters.
        public var systemID: String
        /// At most 8 ASCII characters. The caller loads it from the environment; it is never logged.
        public var password: String
        /// `system_type`: at most 12 ASCII characters; often empty.
        public var systemType = ""
        /// Concurrent `bind_transceiver` sessions; submits go to whichever has room.
        public var binds = 1
        /// `submit_sm` without a response allowed per bind.
        public var window = 10
        /// `submit_sm` per second per bind; nil for no limit.
        public var submitsPerSecond: Double?
        /// `enquire_link` after this long without any PDU from the SMSC.
        public var enquireLinkInterval: Duration = .seconds(30)
        /// How long any request (bind, submit, enquire_link, unbind) may wait for its response before the
        /// connection is deemed dead.
        public var responseTimeout: Duration = .seconds(10)
        /// TCP connect timeout, and how long a write may block on a full socket.
        public var connectTimeout: Duration = .seconds(10)
        /// Waits between reconnect attempts: doubling from the lower to the upper bound with ± 25 %
        /// jitter (never below the lower bound), reset once a bind succeeds.
        public var reconnectBackoff: ClosedRange<Duration> = .seconds(1) ... .seconds(60)
        /// The pause after `ESME_RTHROTTLED`/`ESME_RMSGQFUL`, doubling per consecutive throttle.
        public var throttleBackoff: ClosedRange<Duration> = .seconds(1) ... .seconds(30)
        /// `registered_delivery` for SMS (PINs always go with 0): 1 asks for a receipt on the final outcome.
        public var registeredDelivery: UInt8 = 1
        /// Replace the automatic source TON (5 alphanumeric, 1 numeric) / NPI (0 / 1) for every sender.
        public var sourceTON: UInt8?
        public var sourceNPI: UInt8?
        /// `service_type` for `submit_sm` (at most 5 characters; empty is the SMSC default).
        public var serviceType = ""
        /// Names this provider in delivery reports (`SMSDeliveryReport.provider`).
        public var providerName = "smpp"
        /// Send GSM-7 text packed (8 septets in 7 octets). Off by default: `data_coding` 0 normally
        /// carries one septet per octet and the SMSC packs.
        public var gsm7Packed = false
        /// The longest a submit waits for a bind with room (none up, window full, rate limit) before it is
        /// rejected; nil: the SMS's validity. Whichever is shorter applies.
        public var maximumQueueWait: Duration?
        /// `validity_period` for PIN SMS, and their longest wait.
        public var pinValidity: Duration = .seconds(600)
        /// At shutdown, how long to wait for responses to submits in flight before `unbind`.
        public var shutdownGrace: Duration = .seconds(2)

        public init(host: String, port: Int, systemID: String, password: String) {
            self.host = host
            self.port = port
            self.systemID = systemID
            self.password = password
        }

        /// Throws `.invalidSettings` naming the first bad value.
        func validate() throws(SMPPClientError) {
            func require(_ condition: Bool, _ problem: String) throws(SMPPClientError) {
                if !condition { throw .invalidSettings(problem) }
            }
            func ascii(_ text: String, _ limit: Int) -> Bool {
                text.utf8.count <= limit && text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
            }
            try require(!host.isEmpty, "host must not be empty")
            try require((1...65_535).contains(port), "port must be 1…65535")
            try require(!systemID.isEmpty && ascii(systemID, 15), "systemID must be 1…15 printable ASCII characters")
            try require(ascii(password, 8), "password must be at most 8 printable ASCII characters")
            try require(ascii(systemType, 12), "systemType must be at most 12 printable ASCII characters")
            try require(ascii(serviceType, 5), "serviceType must be at most 5 printable ASCII characters")
            try require((1...64).contains(binds), "binds must be 1…64")
            try require(window >= 1, "window must be at least 1")
            try require(submitsPerSecond.map { $0 > 0 && $0.isFinite } ?? true, "submitsPerSecond must be positive")
            try require(enquireLinkInterval > .zero, "enquireLinkInterval must be positive")
            try require(responseTimeout > .zero, "responseTimeout must be positive")
            try require(connectTimeout > .zero, "connectTimeout must be positive")
            try require(reconnectBackoff.lowerBound > .zero, "reconnectBackoff must be positive")
            try require(throttleBackoff.lowerBound > .zero, "throttleBackoff must be positive")
            try require(maximumQueueWait.map { $0 > .zero } ?? true, "maximumQueueWait must be positive")
            try require(pinValidity > .zero, "pinValidity must be positive")
            try require(shutdownGrace >= .zero, "shutdownGrace must not be negative")
            try require(!providerName.isEmpty, "providerName must not be empty")
        }

        var limits: SMPPSession.Limits {
            SMPPSession.Limits(window: window, submitInterval: submitsPerSecond.map { .seconds(1 / $0) },
                               enquireLinkInterval: enquireLinkInterval, responseTimeout: responseTimeout,
                               throttleBackoff: throttleBackoff)
        }

        var bindRequest: SMPPBindRequest {
            SMPPBindRequest(systemID: systemID, password: password, systemType: systemType)
        }
    }
}

extension SMPPClient.Settings: CustomStringConvertible {
    /// Without the password.
    public var description: String {
        "SMPP \(systemID)@\(host):\(port) binds \(binds) window \(window)"
            + (submitsPerSecond.map { " \($0)/s" } ?? "")
    }
}
