// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "cdhist",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "HistoryKit", targets: ["HistoryKit"]),
        .executable(name: "cdhist", targets: ["cdhist"]),
        .executable(name: "cdhist-fixtures", targets: ["cdhist-fixtures"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .systemLibrary(
            name: "CReadline",
            providers: [.apt(["libreadline-dev"]), .brew(["readline"])]
        ),
        // The commit a release build was made from (scripts/install passes it as a C define).
        .target(name: "CBuildInfo"),
        // sqlite3_db_config's settings, which Swift cannot call (a variadic C function).
        .target(name: "CSQLiteConfig", dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
        .target(
            name: "HistoryKit",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteConfig",
                "CZlib",
            ]
        ),
        .target(
            name: "HistoryFixtures",
            dependencies: [
                "HistoryKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "cdhist",
            dependencies: [
                "HistoryKit",
                "CBuildInfo",
                "CReadline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
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
                "cdhist", "cdhist-fixtures", "HistoryKit", "HistoryFixtures", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
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
    swiftLanguageModes: [.v5]
)
