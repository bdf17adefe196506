import Synchronization
import TandemCore

/// An in-process stand-in for the SMSC and the voice platform that carry verification PINs, for
/// `make run` and tests. It stands in for the user's phone too: every PIN it "delivers" is logged at info
/// level (with the number masked) and kept in memory, so a developer can read it and verify a device.
/// Numbers ending in `000` fail, like the SMS simulator's. Never use it where real users register.
public final class PinSimulator: PinSender, VoiceCaller {
    public enum Channel: String, Sendable, Hashable {
        case sms
        case voice
    }

    public struct Delivered: Sendable, Hashable {
        public let channel: Channel
        public let message: PinMessage
    }

    private let latency: Duration
    private let logger: Logger
    private let delivered = Mutex<[Delivered]>([])

    public init(latency: Duration = .milliseconds(5), logger: Logger = .discarding) {
        self.latency = latency
        self.logger = logger
    }

    public func sendPIN(_ message: PinMessage) async throws(PinDeliveryError) {
        try await deliver(message, channel: .sms)
    }

    public func callPIN(_ message: PinMessage) async throws(PinDeliveryError) {
        try await deliver(message, channel: .voice)
    }

    /// How many deliveries ``log`` keeps (the oldest are dropped).
    public static let kept = 1_000

    /// The latest deliveries, oldest first.
    public var log: [Delivered] { delivered.withLock { Array($0.suffix(Self.kept)) } }

    private func deliver(_ message: PinMessage, channel: Channel) async throws(PinDeliveryError) {
        if latency > .zero { try? await Task.sleep(for: latency) }
        guard !message.msisdn.e164.hasSuffix("000") else { throw PinDeliveryError("the simulated carrier refused the number") }
        delivered.withLock { log in
            log.append(Delivered(channel: channel, message: message))
            // Trimmed once it holds twice what it keeps: one move per `kept` deliveries, not one per delivery.
            if log.count >= 2 * Self.kept { log.removeFirst(log.count - Self.kept) }
        }
        logger.info("simulated PIN delivered", ["channel": .string(channel.rawValue), "msisdn": .msisdn(message.msisdn),
                                                "pin": .string(message.pin), "text": .string(message.text)])
    }
}
