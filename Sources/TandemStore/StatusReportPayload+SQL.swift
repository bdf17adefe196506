import TandemCore

extension StatusReportPayload {
    /// Queues reports, given as `values` — a `VALUES` list of rows (order, delivery key, status, at,
    /// resolution, channel, fallback as 0/1, SMS cause, reject reason) — in their order, each only when its
    /// delivery's account has a webhook, whose URL and format it takes. Due at once.
    static func outboxInsertSQL(values: String) -> String {
        """
        WITH r(seq, delivery, status, at, resolution, channel, fallback, sms_cause, reject_reason) AS (\(values))
        INSERT INTO outbox (delivery_id, url, format, payload, next_attempt_at, created_at)
        SELECT d.id, a.webhook_url, a.webhook_format,
               json_object('at', r.at, 'acceptedAt', d.created_at, 'deliveryKey', d.id, 'messageID', m.message_id,
                           'msisdn', d.msisdn, 'reference', m.reference, 'status', r.status, 'resolution', r.resolution,
                           'channel', r.channel, 'fallback', json(CASE r.fallback WHEN 1 THEN 'true' ELSE 'false' END),
                           'smsCause', r.sms_cause, 'rejectReason', r.reject_reason),
               r.at, r.at
        FROM r JOIN deliveries d ON d.id = r.delivery JOIN messages m ON m.id = d.message_id
        JOIN accounts a ON a.id = m.account_id
        WHERE a.webhook_url IS NOT NULL
        ORDER BY r.seq
        """
    }
}
