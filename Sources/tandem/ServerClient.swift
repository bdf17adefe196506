import Foundation
import TandemCore
import TandemProviders

/// HTTP to a running `tandem serve`, for the commands that must not open its database (`send`, `status`):
/// the server holds the database's lock and is the one process that delivers.
///
/// The server's URL is `--url`, else `http://<listen>` of the configuration (`--config`, `TANDEM_CONFIG`,
/// `Config/tandem.json`, with `TANDEM_LISTEN` applied; a wildcard host is reached on the loopback address).
/// A server that does not answer ends the command with exit status 69 and a sentence saying so.
struct ServerClient {
    let baseURL: String
    private let client: HTTPClient

    /// The URL the command talks to (see the type's comment); fails in words when neither gives one.
    static func baseURL(option: String?, configPath: String?, environment: [String: String]) throws(CommandFailure) -> String {
        if let option {
            let lowered = option.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
                throw CommandFailure(.usage, "--url must be an http:// or https:// URL, got \"\(option)\"")
            }
            return option.hasSuffix("/") ? String(option.dropLast()) : option
        }
        let path = ConfigurationLoader.path(option: configPath, environment: environment)
        let listen = try ConfigurationLoader.configuration(at: path, environment: environment).listen
        guard listen.port != 0 else {
            throw CommandFailure(.usage, "\(path) listens on port 0 (any free port): give the server's URL with --url")
        }
        let host: String
        switch listen.host {
        case "0.0.0.0", "": host = "127.0.0.1"
        case "::", "[::]": host = "[::1]"
        default: host = listen.host.contains(":") && !listen.host.hasPrefix("[") ? "[\(listen.host)]" : listen.host
        }
        return "http://\(host):\(listen.port)"
    }

    init(baseURL: String) throws(CommandFailure) {
        self.baseURL = baseURL
        var configuration = HTTPClient.Configuration()
        configuration.connectTimeout = .seconds(5)
        configuration.defaultTimeout = .seconds(30)
        do {
            client = try HTTPClient(configuration: configuration)
        } catch {
            throw CommandFailure(.failure, "cannot start the HTTP client: \(error)")
        }
    }

    /// Sends a request to `baseURL + path`; an HTTP error status is a response, not a failure.
    func send(_ method: HTTPClientRequest.Method, _ path: String, headers: [HTTPClientHeader] = [],
              body: [UInt8] = []) async throws(CommandFailure) -> HTTPClientResponse {
        let request = HTTPClientRequest(method: method, url: baseURL + path, headers: headers, body: body, version: .http1_1)
        do {
            return try await client.send(request)
        } catch .connectFailed(let reason) {
            throw CommandFailure(.unavailable, "no Tandem server answers at \(baseURL) (\(reason)); is `tandem serve` running? "
                                 + "Give its address with --url, or the configuration it runs with with --config")
        } catch .timeout {
            throw CommandFailure(.unavailable, "the server at \(baseURL) did not answer in time")
        } catch {
            throw CommandFailure(.failure, "\(method) \(baseURL)\(path) failed: \(error)")
        }
    }

    func shutdown() async { await client.shutdown() }

    /// Decodes a JSON answer, or fails naming the request and a bounded excerpt of what came back.
    static func decode<T: Decodable>(_ type: T.Type, _ response: HTTPClientResponse, what: String) throws(CommandFailure) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            let excerpt = String(decoding: response.body.prefix(300), as: UTF8.self)
            throw CommandFailure(.failure, "\(what): unexpected answer (HTTP \(response.status)): \(excerpt)")
        }
    }
}
