import Foundation
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// --booted BUNDLE_ID finds the app's store on the one booted simulator under the user's home.
@Suite struct BootedTests {
    let app = SimulatorFixtures.bundleID

    @Test func theOneBootedDevicesStoreIsFoundByEveryKindOfCommand() throws {
        let home = try TemporaryDirectory()
        let stores = try SimulatorFixtures.write(
            [.init(name: "iPhone 15", booted: false), .init(name: "iPhone 16", booted: true)], home: home.path)
        let store = try #require(stores[1])
        let env = ["HOME": home.path]
        let info = try CLI.run(["info", "--booted", app], environment: env)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(try info.json()["store"] as? String == store)
        // The merge state beside it (the App Group's shared defaults) is read as for the store's path.
        let actors = try CLI.run(["actors", "--booted=\(app)"], environment: env).json()
        #expect(
            Set((actors["actors"] as? [[String: Any]])?.compactMap { $0["actor"] as? String } ?? []) == [
                "app", "widget",
            ])
        let listed = try CLI.run(["stores", "--booted", app, "--names"], environment: env)
        #expect(listed.lines == [store], "\(listed.stdout)\(listed.stderr)")
        // Options before the scenario: the store still goes where the command takes it.
        let provoke = try CLI.run(["provoke", "--actor", "widget", "behind", "--booted", app], environment: env)
        #expect(provoke.status == 0, "\(provoke.stderr)")
        #expect(try provoke.json()["store"] as? String == store)
        let token = try CLI.run(
            ["token", Repository.fixtures + "/MergeState/token.data", "--booted", app], environment: env)
        #expect(token.status == 0, "\(token.stderr)")
        let check = try CLI.run(["check", "--booted", app, "--reporter", "github"], environment: env)
        #expect(check.lines.last?.hasPrefix("cdhist check \(store):") == true, "\(check.stdout)\(check.stderr)")
    }

    /// Each command that takes a store lists --booted in its help (the option is read before the command is).
    @Test func everyCommandThatTakesAStoreShowsTheOptionInItsHelp() throws {
        for command in DocumentationTests.subcommands {
            let help = try CLI.run([command, "--help"])
            #expect(help.status == 0 && help.stdout.contains("--booted <bundle-id>"), "cdhist \(command) --help")
        }
    }

    /// After provoke --booted ID, the commands to run next name the store as it was given, and run.
    @Test func provokeNamesTheBootedAppInTheCommandsToRunNext() throws {
        let home = try TemporaryDirectory()
        let stores = try SimulatorFixtures.write([.init(name: "iPhone 16", booted: true)], home: home.path)
        let store = try #require(stores[0])
        let env = ["HOME": home.path, "COLUMNS": "80"]
        let args = ["provoke", "behind", "--booted", app, "--actor", "widget", "--execute", "--format", "table"]
        let run = try CLI.run(args, environment: env)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.contains("  cdhist check --booted \(app)"), "\(run.stdout)")
        #expect(run.lines.contains("  cdhist provoke --undo --booted \(app)"), "\(run.stdout)")
        #expect(!run.lines.contains { $0.hasPrefix("  cdhist") && $0.contains(store) }, "\(run.stdout)")
        let undo = try CLI.run(["provoke", "--undo", "--booted", app, "--format", "table"], environment: env)
        #expect(undo.status == 0 && undo.stdout.contains("Every file is as it was"), "\(undo.stdout)\(undo.stderr)")
    }

    @Test func withoutOneBootedDeviceTheErrorNamesTheDevices() throws {
        let home = try TemporaryDirectory()
        try SimulatorFixtures.write(
            [.init(name: "iPhone 15", booted: false), .init(name: "iPhone 16", booted: false)], home: home.path)
        let none = try CLI.run(["info", "--booted", app], environment: ["HOME": home.path])
        #expect(none.status == 2)
        #expect(
            none.stderr.contains("no booted simulator holds this app")
                && none.stderr.contains("iPhone 15 (iOS 18.2), shut down")
                && none.stderr.contains("iPhone 16 (iOS 18.2), shut down")
                && none.stderr.contains("no device is booted"), "\(none.stderr)")

        let other = try TemporaryDirectory()
        try SimulatorFixtures.write(
            [.init(name: "iPad", booted: true, holdsApp: false), .init(name: "iPhone 16", booted: false)],
            home: other.path)
        let elsewhere = try CLI.run(["actors", "--booted", app], environment: ["HOME": other.path])
        #expect(
            elsewhere.status == 2 && elsewhere.stderr.contains("booted without it: iPad (iOS 18.2)"),
            "\(elsewhere.stderr)")

        let two = try TemporaryDirectory()
        try SimulatorFixtures.write(
            [.init(name: "iPhone 15", booted: true), .init(name: "iPhone 16", booted: true)], home: two.path)
        let several = try CLI.run(["info", "--booted", app], environment: ["HOME": two.path])
        #expect(
            several.status == 2 && several.stderr.contains("2 booted simulators hold this app"), "\(several.stderr)")
        let missing = try CLI.run(["info", "--booted"], environment: ["HOME": two.path])
        #expect(
            missing.status == 2 && missing.stderr.contains("--booted needs the app's bundle identifier"),
            "\(missing.stderr)")
    }
}
