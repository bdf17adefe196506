import TandemCore
import TandemStoreSupport

/// The scheduler's `messages` rows for new deliveries, one statement for all: a row already stored (by its
/// request, or earlier) is kept as it is.
struct MessageRows: Sendable {
    /// Messages already stored by the same commit, or appended here.
    private var seen: Set<GUID>
    private var columns = ColumnArrays(count: 6)

    /// `stored`: messages the commit stores otherwise (its requests'), left out.
    init(stored: Set<GUID> = []) {
        seen = stored
    }

    var isEmpty: Bool { columns.isEmpty }

    mutating func append(_ content: MessageContent, at: Timestamp) throws(PGError) {
        guard seen.insert(content.messageID).inserted else { return }
        let values: [String?] = [content.messageID.text, content.sender, content.body, content.reference,
                                 String(at.milliseconds), try CommitPlan.presentationText(content)]
        columns.append(values)
    }

    var statement: PGStatement {
        PGStatement("""
            INSERT INTO messages (message_id, sender, body, reference, created_at, presentation)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::json[])
            ON CONFLICT (message_id) DO NOTHING
            """, columns.parameters)
    }
}

/// The `messages` rows of a commit's requests, one statement for all (the sender's account and the app by their
/// keys).
struct RequestMessageRows: Sendable {
    private(set) var ids: Set<GUID> = []
    private var columns = ColumnArrays(count: 20)

    var isEmpty: Bool { columns.isEmpty }

    mutating func append(_ message: MessageRecord) throws(PGError) {
        ids.insert(message.content.messageID)
        let groupings = (0..<3).map { index in index < message.customGroupings.count ? message.customGroupings[index] : nil }
        let values: [String?] = [message.content.messageID.text, message.account.text, message.appKey?.text,
                                 message.content.sender, message.content.body, message.bodyType, message.content.reference,
                                 message.messageType.wireName, message.allowedChannels.storedText,
                                 message.validUntil.map { String($0.milliseconds) }, groupings[0], groupings[1], groupings[2],
                                 message.dcs.map { String($0) }, message.richContent, message.fallbackFor?.text,
                                 String(message.createdAt.milliseconds), message.api,
                                 try CommitPlan.presentationText(message.content), message.extra]
        columns.append(values)
    }

    var statement: PGStatement {
        PGStatement("""
            INSERT INTO messages (message_id, account_id, app_id, sender, body, body_type, reference, message_type,
                                  allowed_channels, validity_until, custom_grouping, custom_grouping2, custom_grouping3,
                                  dcs, rich_content, fallback_for, created_at, api, presentation, extra)
            SELECT r.message_id, (SELECT id FROM accounts WHERE product_token = r.account),
                   (SELECT id FROM apps WHERE app_key = r.app), r.sender, r.body, r.body_type, r.reference, r.message_type,
                   r.allowed_channels, r.validity_until, r.custom_grouping, r.custom_grouping2, r.custom_grouping3, r.dcs,
                   r.rich_content, r.fallback_for, r.created_at, r.api, r.presentation, r.extra
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                        $9::text[], $10::bigint[], $11::text[], $12::text[], $13::text[], $14::integer[], $15::json[],
                        $16::text[], $17::bigint[], $18::text[], $19::json[], $20::json[]) WITH ORDINALITY
                AS r(message_id, account, app, sender, body, body_type, reference, message_type, allowed_channels,
                     validity_until, custom_grouping, custom_grouping2, custom_grouping3, dcs, rich_content, fallback_for,
                     created_at, api, presentation, extra, seq)
            ORDER BY r.seq
            """, columns.parameters)
    }
}

/// New deliveries with their first event, one statement for all. The keys are drawn from the table's sequence
/// in the order of the rows, and the statement answers them in that order.
///
/// **Keys.** Each row takes the next value `n` of the deliveries' sequence. A delivery given a partition `p` (a
/// cluster node's, docs/cluster.md) gets the key `n × 256 + p`, in partition `p` (`key mod 256`); one without gets
/// `n`, as a single server always has. Keys stay unique when one database is served by one server, then several
/// nodes, then one again: a partitioned key is at least 256 times the sequence value it was made from, so greater
/// than every key made before it, and a single server first moves the sequence past the greatest key
/// (``PGStore/advanceDeliveryKeys()``).
struct NewDeliveryRows: Sendable {
    private var columns = ColumnArrays(count: 16)

    /// The key made from the sequence value `sequenceValue` (SQL) in `partition` (SQL; nil: none).
    static func key(sequenceValue: String, partition: String?) -> String {
        partition.map { "\(sequenceValue) * \(PartitionMap.defaultCount) + \($0)" } ?? sequenceValue
    }

    var isEmpty: Bool { columns.isEmpty }
    var count: Int { columns.count }

    mutating func append(_ record: NewDeliveryRecord, columns delivery: DeliveryColumns, snapshot: String) {
        let values: [String?] = [record.content.messageID.text, record.recipient.storedText, delivery.state, delivery.status,
                                 delivery.channel, delivery.pushDeadline.pgText, delivery.readDeadline.pgText,
                                 delivery.expiresAt.pgText, delivery.final.pgText, snapshot, delivery.pushWithdrawn.pgText,
                                 delivery.pushed.pgText, String(record.at.milliseconds), record.event.logKind,
                                 record.event.logDetail, record.partition.map(String.init)]
        columns.append(values)
    }

    /// A row whose message is not stored inserts no delivery but still its event, which then fails the statement
    /// (its delivery is checked, `PGSchema.referencesPerStatement`): the job fails, as SQLite's NOT NULL on `message_id`
    /// makes it fail. The key sequence is looked up once per statement (`pg_get_serial_sequence` per row was ~2 µs of
    /// catalog lookups each).
    var statement: PGStatement {
        PGStatement("""
            WITH numbered AS MATERIALIZED (
                SELECT nextval((SELECT pg_get_serial_sequence('deliveries', 'id')::regclass)) AS n, r.*
                FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],
                            $8::bigint[], $9::boolean[], $10::text[], $11::boolean[], $12::boolean[], $13::bigint[],
                            $14::text[], $15::text[], $16::int[]) WITH ORDINALITY
                    AS r(message, msisdn, state, status, channel, push_deadline, read_deadline, expires_at, final,
                         snapshot, push_withdrawn, pushed, at, kind, detail, part, seq)),
            r AS MATERIALIZED (
                SELECT CASE WHEN part IS NULL THEN n ELSE \(Self.key(sequenceValue: "n", partition: "part")) END AS id, numbered.*
                FROM numbered),
            inserted AS (
                INSERT INTO deliveries (id, message_id, msisdn, state, status, channel, push_deadline, read_deadline,
                                        expires_at, final, snapshot, push_withdrawn, pushed, created_at, updated_at)
                SELECT r.id, m.id, r.msisdn, r.state, r.status, r.channel, r.push_deadline, r.read_deadline, r.expires_at,
                       r.final, r.snapshot, r.push_withdrawn, r.pushed, r.at, r.at
                FROM r JOIN messages m ON m.message_id = r.message),
            logged AS (INSERT INTO delivery_events (delivery_id, at, kind, detail) SELECT id, at, kind, detail FROM r)
            SELECT id FROM r ORDER BY seq
            """, columns.parameters)
    }
}

/// Changed deliveries, one statement for all: the snapshot and derived columns rewritten (all but `pushed`, fixed
/// when the delivery is routed). A delivery changed twice in one commit is written once, as it was last. A key
/// with no row fails the job with SQLSTATE 23503, naming the first such key.
struct ChangedDeliveryRows: Sendable {
    /// One row per delivery, in the order each was first changed; the place of each key's row.
    private var rows: [[String?]] = []
    private var places: [DeliveryKey: Int] = [:]

    var isEmpty: Bool { rows.isEmpty }

    mutating func append(_ key: DeliveryKey, columns: DeliveryColumns, snapshot: String, at: Timestamp) {
        let row: [String?] = [String(key.rawValue), columns.state, columns.status, columns.channel,
                              columns.pushDeadline.pgText, columns.readDeadline.pgText, columns.expiresAt.pgText,
                              columns.final.pgText, snapshot, columns.pushWithdrawn.pgText, String(at.milliseconds)]
        if let place = places[key] {
            rows[place] = row
        } else {
            places[key] = rows.count
            rows.append(row)
        }
    }

    var statement: PGStatement {
        var columns = ColumnArrays(count: 11)
        for row in rows { columns.append(row) }
        return PGStatement("""
            WITH u AS (
                SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[],
                                     $7::bigint[], $8::boolean[], $9::text[], $10::boolean[], $11::bigint[])
                    AS u(id, state, status, channel, push_deadline, read_deadline, expires_at, final, snapshot,
                         push_withdrawn, updated_at)),
            changed AS (
                UPDATE deliveries d SET state = u.state, status = u.status, channel = u.channel,
                    push_deadline = u.push_deadline, read_deadline = u.read_deadline, expires_at = u.expires_at,
                    final = u.final, snapshot = u.snapshot, push_withdrawn = u.push_withdrawn, updated_at = u.updated_at
                FROM u WHERE d.id = u.id RETURNING d.id)
            SELECT CASE WHEN count(*) = $12 THEN count(*)
                        ELSE tandem_expect(count(*), $12, '23503', 'no delivery with key '
                            || (SELECT min(u.id) FROM u WHERE u.id NOT IN (SELECT id FROM changed))) END
            FROM changed
            """, columns.parameters + [String(rows.count)])
    }
}

/// `delivery_events` rows, sent as one statement (a column per array).
struct EventRows: Sendable {
    private var columns = ColumnArrays(count: 4)

    var isEmpty: Bool { columns.isEmpty }

    mutating func append(_ event: DeliveryEvent, of key: DeliveryKey, at: Timestamp) {
        columns.append([String(key.rawValue), String(at.milliseconds), event.logKind, event.logDetail])
    }

    var statement: PGStatement {
        PGStatement("""
            INSERT INTO delivery_events (delivery_id, at, kind, detail)
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[])
            """, columns.parameters)
    }
}

/// Final status reports, queued in the outbox for accounts with a webhook: the outcome's JSON, built in Swift
/// (``StatusReportOutcome/storedText``); the relay reads the rest of the report from the stored delivery.
struct ReportRows: Sendable {
    private var columns = ColumnArrays(count: 3)

    var isEmpty: Bool { columns.isEmpty }

    /// The report of `effects` for the delivery `key` (nil: the one inserted last, see ``statement(keyOfLastInsert:)``),
    /// if it has one.
    mutating func append(_ effects: PersistedEffects, key: DeliveryKey?, delivery: Delivery, at: Timestamp) {
        guard let status = effects.report else { return }
        let outcome = StatusReportOutcome(status: status, at: at, delivery: delivery)
        columns.append([key.map { String($0.rawValue) } ?? "0", String(at.milliseconds), outcome.storedText])
    }

    /// One statement for every row; `keyOfLastInsert`: the delivery is the one this session inserted last (in
    /// `partition`, when it was given one: see ``NewDeliveryRows``).
    func statement(keyOfLastInsert: Bool, partition: Int? = nil) -> PGStatement {
        let delivery = keyOfLastInsert ? NewDeliveryRows.key(sequenceValue: "currval(pg_get_serial_sequence('deliveries', 'id'))",
                                                             partition: partition.map(String.init))
                                       : "r.delivery"
        return PGStatement("""
            WITH r AS (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[]) WITH ORDINALITY AS r(delivery, at, payload, seq))
            INSERT INTO outbox (delivery_id, url, format, payload, next_attempt_at, created_at)
            SELECT d.id, a.webhook_url, a.webhook_format, r.payload, r.at, r.at
            FROM r JOIN deliveries d ON d.id = \(delivery) JOIN messages m ON m.id = d.message_id
            JOIN accounts a ON a.id = m.account_id
            WHERE a.webhook_url IS NOT NULL
            ORDER BY r.seq
            """, columns.parameters)
    }
}
