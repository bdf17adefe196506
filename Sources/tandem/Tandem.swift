import Foundation
import TandemCore

/// `tandem`: the server and its administration commands.
@main
struct Tandem {
    static let usage = """
        usage: tandem <command> [options]

        commands:
          serve                 run the HTTP server (gateway, device API, admin endpoints)
          send NUMBER…          send a test message through a running server; --follow prints its timeline
          status                a running server's version, uptime, deliveries in flight and SMPP binds
          account create NAME   create a sender account and print its product token
          account list          list accounts (product token, state, creation time, name)
          account disable | enable | rotate-token PRODUCT_TOKEN
                                stop or resume an account's sending, or give it a new product token
          account set-webhook PRODUCT_TOKEN URL|none
                                where the account's status reports are posted
          account set-sms-countries PRODUCT_TOKEN …
                                where the gateway may send SMS for the account
          app create NAME       create an app and print its app key and app secret
          app list | show KEY   list apps, or show one app's settings and push credentials (never its secret)
          app rotate-secret KEY replace an app's secret and print the new one
          app set-apns | set-fcm | set-type | set-sms-protection | set-sender-id KEY …
                                set an app's push credentials, default message type, PIN SMS protection or sender id
          app sms-blocks KEY    list an app's number prefixes blocked for low PIN conversion
          app delete KEY        delete an app that no message names, with its registrations
          scg token create | list | revoke PRODUCT_TOKEN …
                                manage an account's bearer tokens for the SCG messaging API
          db copy --from PATH --to URL
                                copy a stopped server's SQLite database into an empty PostgreSQL database
          cluster status        list the nodes on the PostgreSQL database, their partitions and leases
          kannel check-smsbox FILE
                                check that Kannel's smsbox retries DLR callbacks made while Tandem is down
          bench store           measure group-commit throughput against single-row transactions
          version               print the version

        Run `tandem <command> --help` for a command's options.
        Exit status: 0 ok, 1 failure, 64 bad command line, 65 unknown reference, 69 no server answers,
        78 bad configuration.

        """

    static func main() async {
        let words = Array(CommandLine.arguments.dropFirst())
        let environment = ProcessInfo.processInfo.environment
        do {
            try await run(words, environment: environment)
        } catch let failure as CommandFailure {
            ProcessIO.writeError("tandem: \(failure.message)\n")
            if failure.code == .usage && !failure.message.contains("usage:") {
                ProcessIO.writeError("Run `tandem --help` for usage.\n")
            }
            exit(failure.code.rawValue)
        } catch {
            ProcessIO.writeError("tandem: \(error)\n")
            exit(ExitCode.failure.rawValue)
        }
    }

    static func run(_ words: [String], environment: [String: String]) async throws {
        guard let command = words.first else {
            ProcessIO.writeError(usage)
            throw CommandFailure(.usage, "no command given")
        }
        let rest = Array(words.dropFirst())
        switch command {
        case "serve":
            try await ServeCommand(arguments: rest, environment: environment).run()
        case "account":
            try await AccountCommand(arguments: rest, environment: environment).run()
        case "app":
            try await AppCommand(arguments: rest, environment: environment).run()
        case "scg":
            try await SCGCommand(arguments: rest, environment: environment).run()
        case "send":
            try await SendMessageCommand(arguments: rest, environment: environment).run()
        case "status":
            try await StatusCommand(arguments: rest, environment: environment).run()
        case "db":
            try await DatabaseCommand(arguments: rest, environment: environment).run()
        case "cluster":
            try await ClusterCommand(arguments: rest, environment: environment).run()
        case "kannel":
            try KannelCommand(arguments: rest).run()
        case "bench":
            try await BenchCommand(arguments: rest).run()
        case "version", "--version":
            ProcessIO.writeOutput("tandem \(TandemVersion.current)\n")
        case "help", "--help", "-h":
            ProcessIO.writeOutput(usage)
        default:
            throw CommandFailure(.usage, "unknown command \"\(command)\"")
        }
    }
}
