import Synchronization
import TandemCore
import TandemTestSupport
import Testing
@testable import TandemAPI

@Suite("Product-token authenticator")
struct ProductTokenAuthenticatorTests {
    /// Accounts in memory, counting the full reads.
    final class Directory: SenderDirectory {
        let state = Mutex<(accounts: [Account], reads: Int)>(([], 0))
        func accounts() throws -> [Account] { state.withLock { $0.reads += 1; return $0.accounts } }
        func account(productToken: ProductToken) throws -> Account? { nil }
        func app(key: AppKey) throws -> App? { nil }
        func registrations(app: AppKey, msisdns: [MSISDN]) throws -> [MSISDN: [Registration]] { [:] }
        func app(account: ProductToken, senderID: String) throws -> App? { nil }
        func registration(app: AppKey, device: DeviceID) throws -> Registration? { nil }
        var reads: Int { state.withLock { $0.reads } }
        func set(_ accounts: [Account]) { state.withLock { $0.accounts = accounts } }
    }

    @Test("known, unknown and disabled tokens; a new account is found after the refresh interval, a disabled one refused within the maximum age")
    func outcomes() async throws {
        var generator = SystemRandomNumberGenerator()
        let a = Account(name: "A", productToken: .random(using: &generator), createdAt: 0)
        let b = Account(name: "B", productToken: .random(using: &generator), createdAt: 0, disabled: true)
        let c = Account(name: "C", productToken: .random(using: &generator), createdAt: 0)
        let directory = Directory()
        directory.set([a, b])
        let clock = ManualClock(Timestamp(milliseconds: 1_000_000))
        let authenticator = ProductTokenAuthenticator(directory: directory, now: { clock.now() },
                                                      refreshInterval: .milliseconds(200), maximumAge: .seconds(5))
        #expect(try await authenticator.authenticate(a.productToken) == .authenticated(a))
        #expect(try await authenticator.authenticate(b.productToken) == .disabled)
        #expect(directory.reads == 1)  // one load serves every known token

        directory.set([a, b, c])
        #expect(try await authenticator.authenticate(c.productToken) == .unknown)  // within the refresh interval: no reload
        #expect(directory.reads == 1)
        clock.advance(to: Timestamp(milliseconds: 1_000_200))
        #expect(try await authenticator.authenticate(c.productToken) == .authenticated(c))
        #expect(directory.reads == 2)

        directory.set([Account(name: "A", productToken: a.productToken, createdAt: 0, disabled: true), c])
        #expect(try await authenticator.authenticate(a.productToken) == .authenticated(a))  // cached until stale
        clock.advance(to: Timestamp(milliseconds: 1_005_200))
        #expect(try await authenticator.authenticate(a.productToken) == .disabled)
        #expect(try await authenticator.authenticate(b.productToken) == .unknown)
    }
}
