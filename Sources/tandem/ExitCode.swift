import TandemEngine

/// Process exit statuses, after BSD `sysexits.h`, so scripts can tell a typo from an outage.
enum ExitCode: Int32 {
    case ok = 0
    /// Something failed at run time (the server could not start, a write failed).
    case failure = 1
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// The input named something that does not exist, e.g. an unknown product token (EX_DATAERR).
    case dataError = 65
    /// No server answers at the address a command talks to (EX_UNAVAILABLE).
    case unavailable = 69
    /// A configuration or policy file is wrong (EX_CONFIG).
    case configuration = 78
}

/// A failure that ends the command with a message on stderr and an exit status.
struct CommandFailure: Error {
    let code: ExitCode
    let message: String

    init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension CommandFailure {
    /// An ``Administration`` refusal in the CLI's words and exit codes.
    init(_ failure: Administration.Failure) {
        switch failure {
        case .invalidName: self.init(.usage, "NAME must be 1 to 100 printable characters")
        case .unknownAccount(let token): self.init(.dataError, "no active account has product token \(token)")
        case .accountDisabled(let account): self.init(.dataError, "no active account has product token \(account.productToken)")
        case .store(let problem): self.init(.failure, problem)
        }
    }
}
