import XCTest
@testable import TandemProviders
@_exported import TandemTestSupport

extension HTTPClient {
    /// The error `send` throws for `request`, or nil if it returns a response.
    func failure(of request: HTTPClientRequest) async -> HTTPClientError? {
        do {
            _ = try await send(request)
            return nil
        } catch {
            return error
        }
    }
}

extension HTTPClient {
    /// `send` as a value.
    func result(of request: HTTPClientRequest) async -> Result<HTTPClientResponse, HTTPClientError> {
        do {
            return .success(try await send(request))
        } catch {
            return .failure(error)
        }
    }
}

extension HTTPClientResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}


func configuration(_ adjust: (inout HTTPClient.Configuration) -> Void = { _ in }) -> HTTPClient.Configuration {
    var configuration = HTTPClient.Configuration()
    configuration.defaultTimeout = .seconds(10)
    adjust(&configuration)
    return configuration
}
