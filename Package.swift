// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "cdhist",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "HistoryKit", targets: ["HistoryKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(
            name: "HistoryKit",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
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
        .testTarget(
            name: "HistoryKitTests",
            dependencies: [
                "HistoryKit",
                "HistoryFixtures",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v5]
)
