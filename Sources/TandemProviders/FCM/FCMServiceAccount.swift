import Foundation
import TandemCrypto

/// The parts of a Google service-account JSON file (`"type":"service_account"`) the FCM provider uses:
/// the project to send for, and the identity and RSA key that sign the OAuth2 assertion.
///
/// Google's other members (`client_id`, `auth_uri`, certificate URLs, `universe_domain`, …) are ignored:
/// the file is Google's format, not Tandem's configuration.
/// Not guaranteed: that Google still accepts the key (that shows when a token is fetched).
struct FCMServiceAccount: Sendable {
    let projectID: String
    let clientEmail: String
    let tokenURI: String
    /// The key's id, sent as the assertion's `kid` when present.
    let privateKeyID: String?
    let key: SigningKey

    private struct File: Decodable {
        let type: String?
        let project_id: String?
        let private_key_id: String?
        let private_key: String?
        let client_email: String?
        let token_uri: String?
    }

    /// Parses the file's contents; `path` only labels errors.
    init(json: [UInt8], path: String) throws(PushKeyError) {
        func fail(_ problem: String) -> PushKeyError { .malformedServiceAccount(path: path, problem: problem) }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(json))
        } catch {
            throw fail("not a JSON object of strings")
        }
        guard file.type == nil || file.type == "service_account" else { throw fail("type is not service_account") }
        guard let projectID = file.project_id, Self.isProjectID(projectID) else { throw fail("project_id is missing or malformed") }
        guard let clientEmail = file.client_email, !clientEmail.isEmpty else { throw fail("client_email is missing") }
        guard let tokenURI = file.token_uri, tokenURI.hasPrefix("https://") || tokenURI.hasPrefix("http://") else {
            throw fail("token_uri is missing or not an http(s) URL")
        }
        guard let pem = file.private_key else { throw fail("private_key is missing") }
        do {
            key = try SigningKey(pem: pem)
        } catch {
            throw .invalidKey(error)
        }
        guard key.algorithm == .rs256 else { throw .invalidKey(.invalidKey("a service account key must be an RSA key")) }
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
        self.privateKeyID = file.private_key_id.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Letters, digits, `-`, `.` and `:` (domain-scoped projects), so it is safe in the URL path.
    static func isProjectID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 100 && text.utf8.allSatisfy {
            $0.isASCIIAlphanumericByte || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":")
        }
    }
}

extension UInt8 {
    var isASCIIAlphanumericByte: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
}
