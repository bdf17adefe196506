// swift-tools-version:6.0
// Tandem: a self-hosted hybrid messaging engine. System C libraries only; no package dependencies.
import PackageDescription

let package = Package(
    name: "Tandem",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tandem", targets: ["tandem"]),
    ],
    targets: [
        // System libraries: a module map plus a shim of static inline wrappers for variadic C calls.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),

        // Pure domain: types, policies, configuration, routing, lifecycle. No C, no I/O.
        .target(name: "TandemCore"),
        .target(name: "TandemEngine", dependencies: ["TandemCore"]),
        // What every store backend shares (package access only): its worker threads and the lock they wait on, the
        // delivery snapshot's writer and reader, the policy catalog.
        .target(name: "TandemStoreSupport", dependencies: ["TandemCore"]),
        .target(name: "TandemStore", dependencies: ["TandemCore", "TandemStoreSupport", "CSQLite"]),
        // The same ports on PostgreSQL, through libpq.
        .target(name: "TandemPostgres", dependencies: ["TandemCore", "TandemStoreSupport", "CLibPQ"]),
        .target(name: "TandemHTTP", dependencies: ["CMicroHTTPD"]),
        // libcrypto's digests, MACs and random bytes for the API adapters and the providers.
        .target(name: "TandemCrypto", dependencies: ["CCrypto"]),
        .target(name: "TandemProviders", dependencies: ["TandemCore", "TandemCrypto", "CCurl"]),
        .target(name: "TandemAPI", dependencies: ["TandemCore", "TandemEngine", "TandemHTTP", "TandemCrypto"]),
        .executableTarget(name: "tandem",
                          dependencies: ["TandemCore", "TandemEngine", "TandemStore", "TandemPostgres", "TandemHTTP", "TandemAPI",
                                         "TandemProviders", "TandemCrypto"]),

        // Tests/Fuzz (libFuzzer harnesses, each with its own main from libFuzzer) is deliberately not a target:
        // scripts/fuzz.sh builds it with -sanitize=fuzzer,address.

        // Test doubles shared by the test targets (manual clock, recording providers, child processes); never shipped.
        .target(name: "TandemTestSupport", dependencies: ["TandemCore", "CSpawn"], path: "Tests/TandemTestSupport"),
        // glibc's pipe2 and posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module hides (GNU extensions).
        .systemLibrary(name: "CSpawn", path: "Tests/CSpawn"),

        .testTarget(name: "TandemCoreTests", dependencies: ["TandemCore"]),
        .testTarget(name: "TandemEngineTests", dependencies: ["TandemEngine", "TandemCore", "TandemTestSupport"]),
        .testTarget(name: "TandemStoreTests", dependencies: ["TandemStore", "TandemCore", "TandemStoreSupport", "TandemTestSupport"]),
        .testTarget(name: "TandemPostgresTests", dependencies: ["TandemPostgres", "TandemCore", "TandemEngine", "TandemStoreSupport", "TandemStore",
                                                               "TandemTestSupport"]),
        // What every store backend must do, run against SQLite and PostgreSQL alike.
        .testTarget(name: "TandemStoreContractTests", dependencies: ["TandemStore", "TandemPostgres", "TandemCore", "TandemTestSupport"]),
        .testTarget(name: "TandemHTTPTests", dependencies: ["TandemHTTP", "TandemTestSupport"]),
        .testTarget(name: "TandemAPITests", dependencies: ["TandemAPI", "TandemHTTP", "TandemCore", "TandemEngine", "TandemCrypto",
                                                          "TandemStore", "TandemTestSupport", "CSQLite", "TandemProviders"]),
        .testTarget(name: "TandemProvidersTests", dependencies: ["TandemProviders", "TandemCore", "TandemCrypto", "TandemTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
