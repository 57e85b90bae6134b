// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for HistoryKit. Built only by scripts/fuzz, into its own
// build folder, with `-sanitize=fuzzer,address`; the root package and its
// normal `swift build` / `swift test` know nothing of them.
let fuzzTargets = ["fuzz-plist", "fuzz-token", "fuzz-model", "fuzz-changes", "fuzz-store", "fuzz-text"]

let package = Package(
    name: "cdhist-fuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "cdhist", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "HistoryKit", package: "cdhist"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        )
    ]
        + fuzzTargets.map { name in
            .executableTarget(
                name: name,
                dependencies: [
                    "FuzzSupport",
                    .product(name: "HistoryKit", package: "cdhist"),
                    .product(name: "GRDBSQLite", package: "GRDB.swift"),
                ]
            )
        },
    swiftLanguageModes: [.v5]
)
