// swift-tools-version: 6.0
// An app's test package, as an app would write one: its own code (here TasksApp, which saves
// to a Core Data store as Core Data lays it out) and a Swift Testing suite that checks the
// store's history with HistoryKitTesting, from cdhist beside it.
import PackageDescription

let package = Package(
    name: "AppTests",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "cdhist", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(name: "TasksApp", dependencies: [.product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "TasksAppTests",
            dependencies: ["TasksApp", .product(name: "HistoryKitTesting", package: "cdhist")],
            resources: [.copy("Stores")]
        ),
    ]
)
