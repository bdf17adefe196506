/// One `submit_sm` of a submission: its encoded body (the sequence number goes in the header at
/// each write) and how often it has been written.
struct SMPPPart: Sendable {
    let submission: SMPPSubmission
    let index: Int
    let body: [UInt8]
    /// Times written so far; more than one means it was resent after a throttle or a lost connection.
    var writes = 0
}
