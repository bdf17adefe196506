import Foundation
import TandemCore
import TandemStoreSupport

/// SMS pumping protection: apps' ``SMSProtection``, accounts' ``SMSCountryPolicy`` (JSON columns of
/// migration 12, NULL for the defaults) and conversion blocks (``PrefixBlockStore``).
///
/// A stored setting that no longer decodes fails the read with ``StoreError/decoding(column:message:)``
/// rather than reading as the default (which would silently lift a country rule).
extension Store: PrefixBlockStore {
    public func setSMSProtection(key: AppKey, _ protection: SMSProtection) async throws(StoreError) -> Bool {
        let text = try Self.smsSettingText(protection, isDefault: protection.isDefault)
        return try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("UPDATE apps SET sms_protection = ? WHERE app_key = ?", [text.sqlValue, .text(key.text)]) == 1
        }
    }

    public func setSMSCountries(productToken: ProductToken, _ policy: SMSCountryPolicy) async throws(StoreError) -> Bool {
        let text = try Self.smsSettingText(policy, isDefault: policy.isDefault)
        return try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("UPDATE accounts SET sms_countries = ? WHERE product_token = ?",
                       [text.sqlValue, .text(productToken.text)]) == 1
        }
    }

    public func activePrefixBlocks(now: Timestamp) throws(StoreError) -> [PrefixBlock] {
        try read { (db: Connection) throws(StoreError) -> [PrefixBlock] in
            try db.query("""
                SELECT p.app_key, b.prefix, b.region, b.since, b.until, b.sent, b.verified
                FROM sms_prefix_blocks b JOIN apps p ON p.id = b.app_id
                WHERE b.lifted_at IS NULL AND b.until > ? ORDER BY b.id
                """, [.integer(now.milliseconds)]).map { (row) throws(StoreError) -> PrefixBlock in
                guard let app = AppKey(try row.get("app_key", as: String.self)),
                      let prefix = NumberPrefix(try row.get("prefix", as: String.self)),
                      let region = RegionCode(try row.get("region", as: String.self)) else {
                    throw .decoding(column: "sms_prefix_blocks", message: "a block has a malformed stored value")
                }
                return PrefixBlock(app: app, prefix: prefix, region: region,
                                   since: Timestamp(milliseconds: try row.get("since", as: Int64.self)),
                                   until: Timestamp(milliseconds: try row.get("until", as: Int64.self)),
                                   sent: try row.get("sent", as: Int.self), verified: try row.get("verified", as: Int.self))
            }
        }
    }

    /// Ends any earlier active block of the app on the prefix (at the new block's start) and stores the new one.
    public func insert(_ block: PrefixBlock) async throws(StoreError) {
        try await write { (db: Connection) throws(StoreError) in
            guard let appID = try db.scalar("SELECT id FROM apps WHERE app_key = ?", [.text(block.app.text)], as: Int64.self) else {
                throw StoreError.decoding(column: "sms_prefix_blocks.app_id", message: "no app has key \(block.app)")
            }
            try db.run("UPDATE sms_prefix_blocks SET lifted_at = ? WHERE app_id = ? AND prefix = ? AND lifted_at IS NULL",
                       [.integer(block.since.milliseconds), .integer(appID), .text(block.prefix.text)])
            try db.run("""
                INSERT INTO sms_prefix_blocks (app_id, prefix, region, since, until, sent, verified) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [.integer(appID), .text(block.prefix.text), .text(block.region.text), .integer(block.since.milliseconds),
                      .integer(block.until.milliseconds), .integer(Int64(block.sent)), .integer(Int64(block.verified))])
        }
    }

    public func liftPrefixBlock(app: AppKey, prefix: NumberPrefix, now: Timestamp) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("""
                UPDATE sms_prefix_blocks SET lifted_at = ?
                WHERE app_id = (SELECT id FROM apps WHERE app_key = ?) AND prefix = ? AND lifted_at IS NULL AND until > ?
                """, [.integer(now.milliseconds), .text(app.text), .text(prefix.text), .integer(now.milliseconds)]) > 0
        }
    }

    // MARK: - JSON columns

    /// The setting in `column` of `row` (``SMSSettingColumn``); `fallback` when NULL.
    static func smsSetting<T: Decodable>(_ row: Row, _ column: String, default fallback: T) throws(StoreError) -> T {
        let text = try row.get(column, as: String?.self)
        do throws(ColumnCodingError) {
            return try SMSSettingColumn.value(from: text, default: fallback)
        } catch {
            throw .decoding(column: column, message: error.message)
        }
    }

    /// ``SMSSettingColumn/text(_:isDefault:)``: sorted keys; nil (SQL NULL) for the default.
    static func smsSettingText<T: Encodable>(_ value: T, isDefault: Bool) throws(StoreError) -> String? {
        do throws(ColumnCodingError) {
            return try SMSSettingColumn.text(value, isDefault: isDefault)
        } catch {
            throw .encoding(column: "sms settings", message: error.message)
        }
    }
}
