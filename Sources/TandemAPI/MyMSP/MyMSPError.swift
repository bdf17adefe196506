/// myMSP's error numbers, each answered as `N` and the number (see ``MyMSPAnswer``). Every case occurs
/// where its condition does; `noCredits` (12) is never produced: Tandem keeps no credits.
public enum MyMSPError: Int, Error, Sendable, Hashable, CaseIterable {
    /// 7: unknown `user`, or a wrong `pwd`.
    case authorization = 7
    /// 11: the user's message quota (`mymsp.messagesPerDay`) is spent.
    case quotaExceeded = 11
    /// 12: not produced (no credits in Tandem).
    case noCredits = 12
    /// 13: anything unexpected (logged with its detail, never shown).
    case unknown = 13
    case userEmpty = 22
    case userMissing = 23
    case passwordEmpty = 24
    case passwordMissing = 25
    /// 28: no active DPN recipient of the user is left in `recipients`.
    case noRecipients = 28
    /// 46: no recipient of this user has the `recipientid`.
    case recipientNotFound = 46
    case invalidSpid = 60
    case invalidKey = 61
    /// 63: `message` over 4,000 bytes (or, for `send`, missing).
    case invalidMessage = 63
    case invalidDelayWhileIdle = 64
    case invalidCollapseKey = 65
    case invalidSentAfter = 66
    case invalidTimeToLive = 67
    case invalidRestrictedPackageName = 68
    /// 391: `lastmsgno` / `lastMsgId` is not a whole number ≥ 0.
    case invalidMsgno = 391
    /// 392: `lastmsgno` / `lastMsgId` is missing.
    case msgnoMissing = 392
    case invalidRecipientID = 412
}
