import ArgumentParser
import Foundation
import HistoryFixtures
import HistoryKit

/// Writes the committed fixture stores, stores for benchmarks and limits,
/// or commits to a store as a live app does.
@main
struct FixturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdhist-fixtures",
        abstract: "Write deterministic Core Data stores for tests, the README and benchmarks.",
        subcommands: [
            WriteCommand.self, LimitsCommand.self, LiveWriterCommand.self, MirrorCommand.self, PlacesCommand.self,
        ],
        defaultSubcommand: WriteCommand.self)
}

/// The scenarios, or a large store for benchmarks (the default subcommand).
struct WriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write the fixture scenarios, or a large store.",
        discussion:
            """
            Without --transactions, writes every scenario into --out (default: fixtures). With it, writes one \
            large store to --out.
            """
    )

    @Option(help: ArgumentHelp("Output folder for scenarios, or store file with --transactions.", valueName: "path"))
    var out: String?

    @Option(
        help: ArgumentHelp(
            "Write only this scenario (repeatable; also the CloudKit-… variants, which are not committed).",
            valueName: "name"))
    var scenario: [String] = []

    @Option(help: ArgumentHelp("Write a large store with this many transactions.", valueName: "n"))
    var transactions: Int?

    @Option(
        name: .customLong("changes-per-transaction"),
        help: ArgumentHelp("Changes in each generated transaction.", valueName: "m"))
    var changesPerTransaction: Int = 4

    @Option(
        help: ArgumentHelp(
            "With --transactions: also write a defaults plist with three actors (app, widget, shareExtension).",
            valueName: "plist"))
    var defaults: String?

    @Option(
        help: ArgumentHelp(
            "Copy this real store to --out and repeat its history until it has --changes changes.", valueName: "store"))
    var replicate: String?

    @Option(help: ArgumentHelp("With --replicate: how many changes the copy should have at least.", valueName: "n"))
    var changes: Int = 2_000_000

    @Option(
        help: ArgumentHelp(
            """
            Write a store shaped like a real app's history with about this many changes: small transactions \
            mostly without an author, one entity table of 124 attributes shared by three subentities.
            """,
            valueName: "n"))
    var appShaped: Int?

    @Option(
        help: ArgumentHelp(
            """
            Write a store shaped like an iOS Notes history with about this many changes: nearly all updates of \
            wide entities, 2.2 changes per transaction, a few notes updated in a tenth to a fifth of all \
            transactions.
            """,
            valueName: "n"))
    var notesShaped: Int?

    /// Writes `store` with `count` generated transactions to --out (`option` asked for `changes` changes).
    private func writeShaped(
        _ option: String, count: Int, changes: Int, store: FixtureStore,
        make: @escaping (Int) -> FixtureStore.Transaction
    ) throws {
        guard let out else { throw ValidationError("\(option) needs --out") }
        guard changes > 0 else { throw ValidationError("\(option) must be positive") }
        try StoreWriter.write(store, to: out, generated: (count, make))
        print("wrote \(out): \(count) transactions")
    }

    func run() throws {
        if let appShaped {
            return try writeShaped(
                "--app-shaped", count: AppShapedStore.transactions(forChanges: appShaped), changes: appShaped,
                store: AppShapedStore.store, make: AppShapedStore.transaction)
        }
        if let notesShaped {
            return try writeShaped(
                "--notes-shaped", count: NotesShapedStore.transactions(forChanges: notesShaped), changes: notesShaped,
                store: NotesShapedStore.store, make: NotesShapedStore.transaction)
        }
        if let replicate {
            guard let out else { throw ValidationError("--replicate needs --out") }
            guard changes > 0 else { throw ValidationError("--changes must be positive") }
            let r = try HistoryReplicator.replicate(source: replicate, to: out, targetChanges: changes)
            print("wrote \(out): \(r.transactions) transactions, \(r.changes) changes")
            return
        }
        if let transactions {
            guard transactions > 0, changesPerTransaction >= 0 else { throw ValidationError("counts must be positive") }
            let path = out ?? "benchmark.sqlite"
            let fixture = FixtureStore(
                model: Scenarios.tasksModel, storeUUID: "5A5A5A5A-0000-4000-8000-000000000001",
                tombstoneColumnCount: 4, journalMode: .wal(keepInWAL: 0), transactions: [])
            let m = changesPerTransaction
            try StoreWriter.write(
                fixture, to: path,
                generated: (transactions, { Scenarios.benchmarkTransaction($0, changesPerTransaction: m) }))
            print("wrote \(path): \(transactions) transactions, \(transactions * m) changes")
            if let defaults {
                try Data(Scenarios.benchmarkDefaults(transactions: transactions)).write(
                    to: URL(fileURLWithPath: defaults))
                print("wrote \(defaults)")
            }
            return
        }
        let root = out ?? "fixtures"
        // The CloudKit variants are written only when named (the tests write them; they are not committed).
        let known = Scenarios.all + CloudKitFixtures.variants
        let chosen = scenario.isEmpty ? Scenarios.all : known.filter { scenario.contains($0.name) }
        guard !chosen.isEmpty else {
            throw ValidationError(
                """
                no scenario named \(scenario.joined(separator: ", ")); known: \
                \(known.map(\.name).joined(separator: ", "))
                """
            )
        }
        for s in chosen {
            try FixtureFiles.write(s, into: root)
            print("wrote \(root)/\(s.name)")
        }
    }
}

/// The stores at cdhist's limits, into one folder.
struct LimitsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limits",
        abstract:
            """
            Write stores at the limits: 100 tombstones, 1,000 entities, a 10 MB author, a transaction of a \
            million changes, edge timestamps, 7,500 deletions of long-named entities.
            """
    )

    @Option(help: ArgumentHelp("Folder to write them into.", valueName: "dir"))
    var out: String

    @Option(help: ArgumentHelp("Changes in the large transaction.", valueName: "n"))
    var changes: Int = 1_000_000

    func run() throws {
        guard changes > 0 else { throw ValidationError("--changes must be positive") }
        try LimitStores.write(into: out, largeTransactionChanges: changes)
        print("wrote \(out)")
    }
}

/// Commits to a store as a running app does, and reports its lock waits.
struct LiveWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live-writer",
        abstract:
            """
            Commit transactions to a WAL history store as a running app does (to Task objects, or the first \
            entity of its cached model); print a JSON report of lock waits.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The store (a WAL store: one written by this tool, or a copy of a real one).", valueName: "store"))
    var store: String

    @Option(help: ArgumentHelp("How many transactions to commit.", valueName: "n"))
    var transactions: Int = 1000

    @Option(
        name: .customLong("interval-ms"),
        help: ArgumentHelp("Pause after each commit, in milliseconds.", valueName: "ms"))
    var intervalMilliseconds: Double = 2

    @Option(
        name: .customLong("checkpoint-pages"), help: ArgumentHelp("SQLite's wal_autocheckpoint.", valueName: "pages"))
    var checkpointPages: Int = 1000

    @Option(
        help: ArgumentHelp(
            "Write the JSON report here instead of stdout (before the store is closed).", valueName: "file"))
    var report: String?

    func run() throws {
        guard transactions > 0, intervalMilliseconds >= 0, checkpointPages >= 0 else {
            throw ValidationError("counts must be positive")
        }
        let writer = try LiveWriter(path: store, checkpointPages: checkpointPages)
        let result = try writer.run(
            transactions: transactions, interval: intervalMilliseconds / 1000,
            startTime: Date().timeIntervalSinceReferenceDate)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try encoder.encode(result)
        // The report is written before the store is closed, so a reader that
        // finds it knows the app may be closing: SQLite then removes -shm
        // before -wal, and a reader in between sees a WAL without its index.
        if let report {
            try json.write(to: URL(fileURLWithPath: report), options: .atomic)
        } else {
            print(String(decoding: json, as: UTF8.self))
        }
        try writer.close()
    }
}

/// Adds CloudKit mirroring's tables to a copy of a store.
struct MirrorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mirror",
        abstract:
            """
            Give a store (a copy: it is changed) CloudKit mirroring's tables, its exporter at a transaction, a \
            record per object changed up to it.
            """
    )

    @Argument(help: ArgumentHelp("The store to change (work on a copy).", valueName: "store"))
    var store: String

    @Option(help: ArgumentHelp("The transaction the exporter has reached.", valueName: "n"))
    var position: Int64

    func run() throws {
        let uuid = try HistoryStore.open(store).storeUUID
        let records = try MirroringWriter.mirror(store, storeUUID: uuid, position: position)
        print("mirrored \(store): the exporter at #\(position), \(records.count) records")
    }
}

/// Stores where users keep them, for `cdhist stores`.
struct PlacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract:
            """
            Write stores in the places users keep them: a simulator device set, a Mac group container, an \
            .xcappdata, a devicectl copy, an iOS backup, a zip archive (with decoys).
            """
    )

    @Option(help: ArgumentHelp("Folder to write the layouts into.", valueName: "dir"))
    var out: String

    @Option(
        help: ArgumentHelp(
            "Write only this layout (repeatable): simulator, mac, xcappdata, devicectl, backup, archive.",
            valueName: "name"))
    var layout: [String] = []

    func run() throws {
        for name in layout.isEmpty ? PlaceFixtures.layouts : layout {
            guard PlaceFixtures.layouts.contains(name) else {
                throw ValidationError("no layout \(name); known: \(PlaceFixtures.layouts.joined(separator: ", "))")
            }
            let (place, planted) = try PlaceFixtures.write(name, into: out)
            print("wrote \(place): \(planted.map(\.name).joined(separator: ", "))")
        }
    }
}
