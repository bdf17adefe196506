import TandemCore
import TandemProviders

extension ProviderStack {
    /// Reads the Kannel configuration `providers.sms.kannel.smsboxConfig` names and logs whether smsbox retries a
    /// DLR callback that failed while Tandem was down: a warning per `smsbox` group that does not (or when the file
    /// has none, or cannot be read — then nothing was checked), one info line per group that does. Start-up goes
    /// on either way: the check is advice, and Kannel may run with another file.
    static func checkSmsboxRetry(path: String, logger: Logger) {
        let (groups, unreadable) = KannelSmsboxRetry.load(path: path)
        for file in unreadable {
            logger.warning("Kannel configuration not readable: smsbox's DLR retry settings not checked", ["file": .string(file)])
        }
        if groups.isEmpty, !unreadable.contains(path) {
            logger.warning("Kannel configuration has no smsbox group: smsbox's DLR retry settings not checked", ["file": .string(path)])
        }
        for group in groups {
            if let problem = group.problem {
                logger.warning("Kannel smsbox does not retry DLR callbacks: set http-request-retry and http-queue-delay in its smsbox group", [
                    "file": .string(path), "smsbox": .string(group.smsboxID ?? ""), "problem": .string(problem),
                ])
            } else {
                logger.info("Kannel smsbox retries failed DLR callbacks", [
                    "file": .string(path), "smsbox": .string(group.smsboxID ?? ""),
                    "httpRequestRetry": .int(Int64(group.requestRetry ?? 0)),
                    "httpQueueDelay": .int(Int64(group.queueDelay ?? KannelSmsboxRetry.defaultQueueDelay)),
                    "coversSeconds": .int(Int64(group.retryWindow)),
                ])
            }
        }
    }
}
