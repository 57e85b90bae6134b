import Foundation
import GRDB
import TestSupport
import Testing

/// Checks that must hold on every real store of `../shared/corpus`, whatever stores it holds: a
/// store added later is taken without code written for it. For each: what `saves` says of each
/// save's exactness against a frame-by-frame reading written apart (``CorpusModel``); each save
/// read with `info --at-save` against SQLite reading a copy whose `-wal` ends at that commit;
/// `--values` of every change in the window against the same copies; `recover`; and every read
/// command as a table at 80 columns, leaving every byte of the store's files as it was.
///
/// Under a sanitizer (`scripts/sanitize`: every process several times slower) only the first
/// check runs: the others read every save and run every command, minutes there.
@Suite(.tags(.slow)) struct CorpusTests {
    static let stores = Corpus.stores

    /// Whether the checks that read every save and run every command run: not under a sanitizer.
    static let everything: Bool = {
        guard let sanitizer = ProcessInfo.processInfo.environment["CDHIST_SANITIZER"], Corpus.available else {
            return Corpus.available
        }
        print(
            """
            NOTICE: under the \(sanitizer) sanitizer, the corpus's every save and every command are not run \
            (scripts/sanitize)
            """
        )
        return false
    }()

    /// The saves cdhist lists, with the checkpoint it finds and each save's exactness.
    @Test(.enabled(if: Corpus.available), arguments: stores)
    func eachSaveIsExactUnlessACheckpointThatFitsEveryPageSaysOtherwise(store: String) throws {
        let model = try CorpusModel(store: store)
        let r = try CLI.run(["saves", store, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let document = try r.json()
        let saves = try #require(document["saves"] as? [[String: Any]])
        #expect(saves.count == model.commitEnds.count)
        #expect(document["backfilledFrames"] as? Int == model.backfilled, "\(store)")
        for (k, save) in saves.enumerated() {
            #expect(save["lastFrame"] as? Int == model.commitEnds[k], "save \(k + 1)")
            #expect(save["exact"] as? Bool == model.saveExact(k + 1), "\(store): save \(k + 1): \(save["why"] ?? "")")
        }
        // A log without a commit (empty, absent, or only a header) lists none, and no command finds a save in it.
        if model.commitEnds.isEmpty {
            for command in [["saves"], ["saves", "--slots"], ["recover"]] {
                let empty = try CLI.launch(command + [store])
                #expect(empty.status == 0, "\(command): \(empty.stderr)")
            }
            let none = try CLI.run(["info", store, "--at-save", "1"])
            #expect(none.status == 2 && none.stderr.contains("there is no save 1"), "\(none.stderr)")
        }
    }

    /// Each save as `info --at-save` reads it is what SQLite reads of a copy whose `-wal` ends at
    /// that commit; `--values` reads every change in the window from those states, and says
    /// whether they are exact, as the frames show.
    @Test(.enabled(if: everything), arguments: stores)
    func eachSaveAndEveryValueAreWhatSQLiteReadsOfTheLogCutThere(store: String) throws {
        let model = try CorpusModel(store: store)
        guard !model.commitEnds.isEmpty else { return }
        let dir = try TemporaryDirectory()
        let wal = try Data(contentsOf: URL(fileURLWithPath: store + "-wal"))
        // The state after each save, as SQLite reads a copy cut there: counts, and the transactions it added.
        var states: [State] = [try State(store, wal: wal.prefix(0), in: dir, save: 0)]
        var addedBy: [Int64: Int] = [:]
        for n in 1...model.commitEnds.count {
            let state = try State(store, wal: wal.prefix(model.length(throughCommit: n)), in: dir, save: n)
            for number in state.transactions.subtracting(states[n - 1].transactions) { addedBy[number] = n }
            let info = try CLI.run(["info", store, "--at-save", "\(n)", "--format", "json"])
            #expect(info.status == 0, "\(info.stderr)")
            let json = try info.json()
            #expect(json["transactionCount"] as? Int == state.transactions.count, "\(store) save \(n)")
            #expect(json["changeCount"] as? Int == state.changeCount, "\(store) save \(n)")
            #expect((json["files"] as? [String: Any])?["wal"] as? Int == model.length(throughCommit: n))
            let at = try #require(json["atSave"] as? [String: Any])
            #expect(
                at["save"] as? Int == n && at["of"] as? Int == model.commitEnds.count
                    && at["exact"] as? Bool == model.stateExact[n])
            states.append(state)
        }
        // Every change: in the window, read from the states before and after the save that added its
        // transaction; outside it, none, with why.
        let changes = try CLI.run(["changes", store, "--values", "--format", "ndjson"])
        #expect(changes.status == 0, "\(changes.stderr)")
        var compared = 0
        for line in changes.lines {
            let change = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let tx = try #require(change["transactionNumber"] as? Int64)
            guard let save = addedBy[tx] else {
                #expect(
                    change["valuesSave"] is NSNull && (change["valuesNote"] as? String)?.isEmpty == false, "\(change)")
                continue
            }
            #expect(change["valuesSave"] as? Int == save, "\(store) change \(change["changeID"] ?? "?")")
            #expect(
                change["valuesExact"] as? Bool == model.saveExact(save), "\(store) change \(change["changeID"] ?? "?")")
            #expect((change["valuesNote"] is NSNull) == model.saveExact(save))
            let entity = change["entity"] as? String ?? ""
            let pk = change["entityPK"] as? Int64 ?? 0
            for (key, state) in [("valuesBefore", states[save - 1]), ("valuesAfter", states[save])] {
                guard let values = change[key] as? [String: Any] else { continue }
                compared += try state.compare(
                    values, entity: entity, pk: pk, context: "\(store) change \(change["changeID"] ?? "?") \(key)")
            }
        }
        if !addedBy.isEmpty { #expect(compared > 0, "\(store): no value compared") }
        // The slot layout names every property an update of an exact save changed; a column Core
        // Data's triggers set (a derived or count attribute) is counted apart and refutes no layout.
        let slots = try CLI.run(["saves", store, "--slots", "--format", "json"])
        let check = try #require(try slots.json()["slotCheck"] as? [String: Any])
        #expect((check["withoutBit"] as? [Any])?.isEmpty == true, "\(store): \(check["withoutBit"] ?? "")")
        #expect(
            (check["uncertainLayouts"] as? [[String: Any]] ?? []).allSatisfy { $0["refuting"] as? Int == 0 }, "\(store)"
        )
    }

    /// `recover` and every read command, as a table at 80 columns: each fits, and reading changes
    /// no byte of the store's files and makes no file beside them.
    @Test(.enabled(if: everything), arguments: stores)
    func everyReadCommandFitsEightyColumnsAndChangesNothing(store: String) throws {
        let folder = URL(fileURLWithPath: store).deletingLastPathComponent().path
        let before = try DirectoryState(folder)
        let recovered = try CLI.run(["recover", store, "--format", "json"])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let model = try CorpusModel(store: store)
        var commands = [
            ["info", store, "--change-types"], ["transactions", store], ["changes", store, "--limit", "200"],
            ["entities", store],
            ["authors", store], ["deleted", store], ["check", store], ["actors", store], ["cloudkit", store],
            ["timeline", store],
            ["saves", store], ["saves", store, "--slots"], ["recover", store],
            ["export", store, "--limit", "20", "--format", "csv"],
        ]
        if !model.commitEnds.isEmpty {
            commands += [["transactions", store, "--at-save", "1"], ["changes", store, "--values", "--limit", "50"]]
        }
        for command in commands {
            let r = try CLI.run(
                command + ["--utc"] + (command.contains("csv") ? [] : ["--format", "table"]),
                environment: ["COLUMNS": "80"])
            #expect(r.status == 0 || r.status == 1, "\(command): \(r.stderr)")
            #expect(!r.stdout.contains("\u{1B}"), "\(command): a control character reached the output")
            guard !command.contains("csv") else { continue }
            for line in r.lines where line.count > 80 {
                Issue.record("\(command.joined(separator: " ")): \(line.count) characters: \(line)")
            }
        }
        #expect(try DirectoryState(folder) == before, "\(store): a read changed the folder")
    }

    /// A store as SQLite reads a copy of it whose `-wal` is `wal`.
    struct State {
        var transactions: Set<Int64>
        var changeCount: Int
        /// The columns of each table, and each entity's table (its root's).
        private var columns: [String: Set<String>]
        private var tables: [String: String]
        private let queue: DatabaseQueue

        init(_ store: String, wal: Data, in dir: TemporaryDirectory, save: Int) throws {
            let copy = dir.file("save-\(save).sqlite")
            try FileManager.default.copyItem(atPath: store, toPath: copy)
            if !wal.isEmpty { try wal.write(to: URL(fileURLWithPath: copy + "-wal")) }
            var config = Configuration()
            config.readonly = false
            queue = try DatabaseQueue(path: copy, configuration: config)
            (transactions, changeCount, columns, tables) = try queue.read { db in
                let transactions = Set(try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ATRANSACTION"))
                let changes = try Int.fetchOne(db, sql: "SELECT count(*) FROM ACHANGE") ?? 0
                var columns: [String: Set<String>] = [:]
                for table in try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%'")
                {
                    columns[table] = Set(
                        try Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")").map { $0["name"] as String })
                }
                let entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY")
                let byNumber = Dictionary(
                    entities.map { ($0[0] as Int64, (name: $0[1] as String, parent: $0[2] as Int64)) },
                    uniquingKeysWith: { a, _ in a })
                var tables: [String: String] = [:]
                for (_, entity) in byNumber {
                    var root = entity
                    var steps = 0
                    while root.parent != 0, let parent = byNumber[root.parent], steps < 100 {
                        root = parent
                        steps += 1
                    }
                    tables[entity.name] = "Z" + root.name.uppercased()
                }
                return (transactions, changes, columns, tables)
            }
        }

        /// Compares the values of `values` that a column holds as they are (text and integers, in a
        /// column named for the property alone), with the object's row; the number compared.
        func compare(_ values: [String: Any], entity: String, pk: Int64, context: String) throws -> Int {
            guard let table = tables[entity], let names = columns[table] else { return 0 }
            var compared = 0
            try queue.read { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM \"\(table)\" WHERE Z_PK = ?", arguments: [pk])
                else {
                    Issue.record("\(context): no row \(entity) \(pk)")
                    return
                }
                for (name, value) in values {
                    let column = "Z" + name.uppercased()
                    // A numbered column means entities sharing the table declare the name: which is whose is not told here.
                    guard names.contains(column), !names.contains(column + "1") else { continue }
                    let stored = row[column] as DatabaseValue
                    switch (stored.storage, value) {
                    case (.string(let text), let shown as String):
                        #expect(text == shown, "\(context): \(name)")
                        compared += 1
                    case (.int64(let number), let shown as NSNumber):
                        #expect(number == shown.int64Value, "\(context): \(name)")
                        compared += 1
                    case (.null, is NSNull):
                        compared += 1
                    default:
                        continue
                    }
                }
            }
            return compared
        }
    }
}
