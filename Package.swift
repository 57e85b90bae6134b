// swift-tools-version:6.0
import PackageDescription

/// The line editor of the interactive session. `CDHIST_LINE_EDITOR` in the environment of
/// `swift build` chooses: `libedit` (the system's on macOS, Debian's libedit-dev on Linux) or
/// `readline` (GNU Readline: Debian's libreadline-dev, Homebrew's readline found through
/// pkg-config). Without it: libedit on macOS, so Xcode's command-line tools are all a build
/// needs there, GNU Readline elsewhere.
enum LineEditor: String {
    case readline, libedit
}

let lineEditor: LineEditor = {
    if let chosen = Context.environment["CDHIST_LINE_EDITOR"], !chosen.isEmpty {
        guard let editor = LineEditor(rawValue: chosen) else {
            fatalError("CDHIST_LINE_EDITOR is '\(chosen)': it must be readline or libedit")
        }
        return editor
    }
    #if os(macOS)
        return .libedit
    #else
        return .readline
    #endif
}()

/// Homebrew's readline is keg-only (outside the compiler's paths): pkg-config finds it on macOS.
/// Debian's is in the standard paths, and its .pc file brings ncurses' -D flags SwiftPM refuses.
#if os(macOS)
    let readlinePkgConfig: String? = "readline"
#else
    let readlinePkgConfig: String? = nil
#endif

let lineEditorLibrary: Target =
    lineEditor == .readline
    ? .systemLibrary(
        name: "CReadline", pkgConfig: readlinePkgConfig, providers: [.apt(["libreadline-dev"]), .brew(["readline"])])
    // No pkg-config here: Debian's libedit.pc adds -D_XOPEN_SOURCE=600 to every target that imports
    // it, and macOS's SDK has no .pc file; the header is <editline/readline.h> on both.
    : .systemLibrary(name: "CEditLine", providers: [.apt(["libedit-dev"])])

let package = Package(
    name: "cdhist",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "HistoryKit", targets: ["HistoryKit"]),
        // For an app's test targets: HistoryKit's use cases as expectations of Swift Testing or XCTest.
        .library(name: "HistoryKitTesting", targets: ["HistoryKitTesting"]),
        .executable(name: "cdhist", targets: ["cdhist"]),
        .executable(name: "cdhist-fixtures", targets: ["cdhist-fixtures"]),
        .executable(name: "cdhist-mcp", targets: ["cdhist-mcp"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // SHA-256 of the evidence files (CryptoKit on Apple systems, BoringSSL elsewhere).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // The Model Context Protocol server (cdhist-mcp), apart from cdhist: on Linux the SDK
        // links FoundationNetworking and so libcurl.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", .upToNextMinor(from: "0.12.1")),
    ],
    targets: [
        .systemLibrary(
            // Named apart from the "CZLib" ZIPFoundation declares on Linux: two module names that
            // differ only in case would share a build folder on a case-insensitive disk.
            name: "CSystemZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        lineEditorLibrary,
        // The calls the session makes of its line editor, written once for GNU Readline and
        // for libedit (whose macOS version lacks some of GNU Readline's: see LineEditor.c).
        .target(
            name: "CLineEditor",
            dependencies: [.target(name: lineEditorLibrary.name)],
            cSettings: lineEditor == .readline ? [.define("CDHIST_GNU_READLINE")] : [],
            // A C target links what its module map names only when Swift imports it: named here.
            linkerSettings: [.linkedLibrary(lineEditor == .readline ? "readline" : "edit")]
        ),
        // The commit a release build was made from (scripts/install passes it as a C define).
        .target(name: "CBuildInfo"),
        // sqlite3_db_config's settings, which Swift cannot call (a variadic C function).
        .target(name: "CSQLiteConfig", dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // A read-only VFS that shows a store as it was after one commit of its -wal (saves, --at-save).
        .target(name: "CWALView", dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // HistoryKit's layers, each a target that sees only the ones below it, so that an upward
        // use does not compile. Reading: the files, the model, the store and its history.
        .target(
            name: "HistoryReading",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteConfig",
                "CWALView",
                "CSystemZlib",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // What the history means: objects, diffs, saves of the -wal, merge state, CloudKit, analyses.
        .target(
            name: "HistoryAnalysis",
            dependencies: ["HistoryReading", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // What changes a store or its merge state: purges and repairs.
        .target(
            name: "HistoryWrites",
            dependencies: [
                "HistoryReading", "HistoryAnalysis", "CSQLiteConfig",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Where stores are: folders, archives, simulators, and the evidence kept of them.
        .target(
            name: "HistoryPlaces",
            dependencies: [
                "HistoryReading", "HistoryAnalysis",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The checks, the use cases that combine the layers, and provocations; it re-exports every
        // layer, so that `import HistoryKit` gives every public type.
        .target(
            name: "HistoryKit",
            dependencies: [
                "HistoryReading", "HistoryAnalysis", "HistoryWrites", "HistoryPlaces",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Expectations for an app's own tests (XCTest or Swift Testing): health, a provocation in a
        // scope, what a save wrote. It records failures in the test library that runs the test.
        .target(name: "HistoryKitTesting", dependencies: ["HistoryKit"], swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(
            name: "HistoryFixtures",
            dependencies: [
                "HistoryKit",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The command line: commands, the interactive session, renderers. A library, so that tests
        // run a command in-process (``Entry/run(_:console:)``); the executable is its entry point.
        .target(
            name: "CDHistCLI",
            dependencies: [
                "HistoryKit",
                "CBuildInfo",
                "CLineEditor",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/cdhist",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "cdhist", dependencies: ["CDHistCLI"], path: "Sources/cdhist-main",
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // The MCP server: each tool a command of CDHistCLI run in-process for its JSON document.
        .target(
            name: "CDHistMCP",
            dependencies: ["CDHistCLI", "HistoryKit", .product(name: "MCP", package: "swift-sdk")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "cdhist-mcp",
            dependencies: [
                "CDHistMCP", "CDHistCLI", .product(name: "MCP", package: "swift-sdk"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "cdhist-fixtures",
            dependencies: [
                "HistoryFixtures",
                "HistoryKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "TestSupport", dependencies: ["HistoryKit"], path: "Tests/TestSupport"),
        .testTarget(
            name: "cdhistTests",
            dependencies: [
                "cdhist", "CDHistCLI", "cdhist-fixtures", "HistoryKit", "HistoryFixtures", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .testTarget(
            name: "CDHistMCPTests",
            dependencies: [
                "CDHistMCP", "CDHistCLI", "HistoryKit", "TestSupport", .product(name: "MCP", package: "swift-sdk"),
            ]
        ),
        .testTarget(
            name: "HistoryKitTestingTests",
            dependencies: ["HistoryKitTesting", "HistoryKit", "HistoryFixtures", "TestSupport"]
        ),
        .testTarget(
            name: "HistoryKitTests",
            dependencies: [
                "HistoryKit",
                "HistoryFixtures",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    // HistoryKit and the command line build in Swift 6 mode (their targets say so); the fixtures'
    // generator, the tests and the C shims' Swift wrappers keep Swift 5.
    swiftLanguageModes: [.v5]
)
