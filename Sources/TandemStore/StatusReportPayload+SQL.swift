import TandemCore

extension StatusReportPayload {
    /// Queues one report for delivery `?1` with status `?2` at `?3` (resolution `?4`, channel `?5`,
    /// fallback `?6` as 0/1, SMS cause `?7`, reject reason `?8`) — only when the delivery's account has
    /// a webhook, whose URL and format it takes. Due at once.
    static let outboxInsertSQL = """
        INSERT INTO outbox (delivery_id, url, format, payload, next_attempt_at, created_at)
        SELECT d.id, a.webhook_url, a.webhook_format,
               json_object('at', ?3, 'acceptedAt', d.created_at, 'deliveryKey', d.id, 'messageID', m.message_id,
                           'msisdn', d.msisdn, 'reference', m.reference, 'status', ?2, 'resolution', ?4,
                           'channel', ?5, 'fallback', json(CASE ?6 WHEN 1 THEN 'true' ELSE 'false' END),
                           'smsCause', ?7, 'rejectReason', ?8),
               ?3, ?3
        FROM deliveries d JOIN messages m ON m.id = d.message_id JOIN accounts a ON a.id = m.account_id
        WHERE d.id = ?1 AND a.webhook_url IS NOT NULL
        """
}
