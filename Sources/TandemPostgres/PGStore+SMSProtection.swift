import Foundation
import TandemCore
import TandemStoreSupport

/// SMS pumping protection on PostgreSQL, as SQLite's `Store+SMSProtection.swift`: apps' ``SMSProtection``,
/// accounts' ``SMSCountryPolicy`` (`json` columns, NULL for the defaults) and conversion blocks
/// (``PrefixBlockStore``). A stored setting that no longer decodes fails the read rather than reading as the
/// default (which would silently lift a country rule).
extension PGStore: PrefixBlockStore {
    public func setSMSProtection(key: AppKey, _ protection: SMSProtection) async throws(PGError) -> Bool {
        let text = try Self.smsSettingText(protection, isDefault: protection.isDefault)
        return try await write([PGStatement("UPDATE apps SET sms_protection = $1 WHERE app_key = $2", [text, key.text])])[0]
            .changedRows == 1
    }

    public func setSMSCountries(productToken: ProductToken, _ policy: SMSCountryPolicy) async throws(PGError) -> Bool {
        let text = try Self.smsSettingText(policy, isDefault: policy.isDefault)
        return try await write([PGStatement("UPDATE accounts SET sms_countries = $1 WHERE product_token = $2",
                                            [text, productToken.text])])[0].changedRows == 1
    }

    public func activePrefixBlocks(now: Timestamp) async throws(PGError) -> [PrefixBlock] {
        let result = try await read { db throws(PGError) in
            try db.execute("""
                SELECT p.app_key, b.prefix, b.region, b.since, b.until, b.sent, b.verified
                FROM sms_prefix_blocks b JOIN apps p ON p.id = b.app_id
                WHERE b.lifted_at IS NULL AND b.until > $1 ORDER BY b.id
                """, [now.pgText])
        }
        return try result.rows("sms_prefix_blocks").map { (row) throws(PGError) -> PrefixBlock in
            guard let app = AppKey(try row.text(0)), let prefix = NumberPrefix(try row.text(1)),
                  let region = RegionCode(try row.text(2)) else {
                throw .client("sms_prefix_blocks: a block has a malformed stored value")
            }
            return PrefixBlock(app: app, prefix: prefix, region: region, since: Timestamp(milliseconds: try row.int64(3)),
                               until: Timestamp(milliseconds: try row.int64(4)), sent: Int(try row.int64(5)),
                               verified: Int(try row.int64(6)))
        }
    }

    /// Ends any earlier active block of the app on the prefix (at the new block's start) and stores the new one;
    /// an unknown app fails with SQLSTATE 23503, writing nothing.
    public func insert(_ block: PrefixBlock) async throws(PGError) {
        _ = try await write([
            .appMustExist(block.app),
            PGStatement("""
                UPDATE sms_prefix_blocks SET lifted_at = $1
                WHERE app_id = (SELECT id FROM apps WHERE app_key = $2) AND prefix = $3 AND lifted_at IS NULL
                """, [block.since.pgText, block.app.text, block.prefix.text]),
            PGStatement("""
                INSERT INTO sms_prefix_blocks (app_id, prefix, region, since, until, sent, verified)
                SELECT id, $2, $3, $4, $5, $6, $7 FROM apps WHERE app_key = $1
                """, [block.app.text, block.prefix.text, block.region.text, block.since.pgText, block.until.pgText,
                      block.sent.pgText, block.verified.pgText]),
        ])
    }

    public func liftPrefixBlock(app: AppKey, prefix: NumberPrefix, now: Timestamp) async throws(PGError) -> Bool {
        try await write([PGStatement("""
            UPDATE sms_prefix_blocks SET lifted_at = $1
            WHERE app_id = (SELECT id FROM apps WHERE app_key = $2) AND prefix = $3 AND lifted_at IS NULL AND until > $1
            """, [now.pgText, app.text, prefix.text])])[0].changedRows > 0
    }

    // MARK: - JSON columns

    /// The setting stored as `text` (``SMSSettingColumn``; `column` names it in the error); `fallback` when NULL.
    static func smsSetting<T: Decodable>(_ text: String?, _ column: String, default fallback: T) throws(PGError) -> T {
        do throws(ColumnCodingError) {
            return try SMSSettingColumn.value(from: text, default: fallback)
        } catch {
            throw .client("\(column) does not decode: \(error.message)")
        }
    }

    /// ``SMSSettingColumn/text(_:isDefault:)``: sorted keys; nil (NULL) for the default.
    static func smsSettingText<T: Encodable>(_ value: T, isDefault: Bool) throws(PGError) -> String? {
        do throws(ColumnCodingError) {
            return try SMSSettingColumn.text(value, isDefault: isDefault)
        } catch {
            throw .client("sms settings cannot be written: \(error.message)")
        }
    }
}
