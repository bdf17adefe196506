import Testing
@testable import TandemHTTP

@Suite("HTTPRouter matching")
struct RouterTests {
    static let ok = Handler.sync { _ in .empty(.ok) }

    static func route(of match: RouteMatch) -> String? {
        if case .matched(let route, _, _) = match { return route }
        return nil
    }

    @Test("literal beats parameter, and a parameter route still serves other values")
    func literalFirst() {
        var router = HTTPRouter()
        router.add(.GET, "/a/{id}", Self.ok)
        router.add(.GET, "/a/new", Self.ok)
        #expect(Self.route(of: router.match(.GET, path: "/a/new")) == "/a/new")
        #expect(Self.route(of: router.match(.GET, path: "/a/old")) == "/a/{id}")
    }

    @Test("a method match on a parameter route beats a literal route of another method")
    func methodBeforeLiteral() {
        var router = HTTPRouter()
        router.add(.GET, "/a/b", Self.ok)
        router.add(.POST, "/a/{x}", Self.ok)
        guard case .matched(let route, _, let parameters) = router.match(.POST, path: "/a/b") else {
            Issue.record("expected a match")
            return
        }
        #expect(route == "/a/{x}")
        #expect(parameters == ["x": "b"])
    }

    @Test("backtracks from a literal branch that dead-ends")
    func backtracking() {
        var router = HTTPRouter()
        router.add(.GET, "/a/b/c", Self.ok)
        router.add(.GET, "/a/{x}/d", Self.ok)
        guard case .matched(let route, _, let parameters) = router.match(.GET, path: "/a/b/d") else {
            Issue.record("expected a match")
            return
        }
        #expect(route == "/a/{x}/d")
        #expect(parameters == ["x": "b"])
    }

    @Test("405 lists the allowed methods sorted, adding HEAD when GET exists; 404 otherwise")
    func allowed() {
        var router = HTTPRouter()
        router.add(.PUT, "/r", Self.ok)
        router.add(.GET, "/r", Self.ok)
        router.add(.DELETE, "/r", Self.ok)
        guard case .methodNotAllowed(let allowed) = router.match(.POST, path: "/r") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == [.DELETE, .GET, .HEAD, .PUT])
        guard case .notFound = router.match(.GET, path: "/r/x") else {
            Issue.record("expected 404")
            return
        }
        guard case .notFound = router.match(.GET, path: "/r/") else {
            Issue.record("trailing slash must not match")
            return
        }
    }

    @Test("HEAD falls back to GET; the root path routes")
    func headAndRoot() {
        var router = HTTPRouter()
        router.add(.GET, "/", Self.ok)
        #expect(Self.route(of: router.match(.HEAD, path: "/")) == "/")
        #expect(Self.route(of: router.match(.GET, path: "/")) == "/")
        guard case .notFound = router.match(.GET, path: "/x") else {
            Issue.record("expected 404")
            return
        }
    }
}
