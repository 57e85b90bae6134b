import Foundation
import GRDB
import HistoryKit

/// Commits transactions to a store as a running app does through Core Data:
/// WAL mode, a busy handler, and each save in one SQLite transaction that
/// adds its `ATRANSACTION` row, its `ACHANGE` rows, any new
/// `ATRANSACTIONSTRING` names and the `Z_PRIMARYKEY` high-water marks.
/// It measures how long each commit waited for a lock (time spent in
/// SQLite's busy handler, which runs only while another connection holds a
/// lock this one needs) and how long each commit took.
public final class LiveWriter {
    /// What a run did and how long it waited.
    public struct Report: Codable, Equatable, Sendable {
        public var transactions: Int
        public var changes: Int
        public var firstTransaction: Int64
        public var lastTransaction: Int64
        /// The longest time one commit waited for a lock, in milliseconds.
        public var maxLockWaitMilliseconds: Double
        /// Commits that waited for a lock at all.
        public var commitsThatWaited: Int
        /// The longest commit from `BEGIN IMMEDIATE` to `COMMIT`, in milliseconds.
        public var maxCommitMilliseconds: Double
        public var seconds: Double
    }

    /// The number of changes of transaction `number`: 1, 2, 3, 4 in turn,
    /// so a reader can tell a transaction that is only partly there.
    public static func changeCount(ofTransaction number: Int64) -> Int { 1 + Int(number % 4) }

    /// Authors the writer rotates through, as an app, its widget and its share extension.
    public static let authors = ["app", "widget", "shareExtension"]

    private let queue: DatabaseQueue
    /// When the busy handler was first called since the last commit (the handler runs on the
    /// connection's queue, the writer reads it after each commit).
    private let firstBusyCall = Locked<UInt64?>(nil)
    /// The entity whose objects the writer inserts, updates and deletes, and its root's name.
    private let entity: Int64
    private let rootName: String
    /// ZCOLUMNS of an update: one attribute's bit.
    private let updateColumns: Data
    /// Whether deletes keep a tombstone value (the store has `ZTOMBSTONE0`).
    private let hasTombstone: Bool
    /// How transactions name their author and context: through the string table, or inline.
    private let namesInStringTable: Bool
    /// The objects' table and the updated attribute's column, when the store has that table
    /// (its rows are then written as Core Data writes them: inserted, updated, deleted).
    private let rows: (table: String, column: String)?
    private var nextPK: Int64 = 0

    /// Seconds the busy handler waited since the last call, and starts again.
    private func busyWait() -> Double {
        let now = DispatchTime.now().uptimeNanoseconds
        return firstBusyCall.withLock { first in
            defer { first = nil }
            return first.map { Double(now - $0) / 1e9 } ?? 0
        }
    }

    /// Opens the existing WAL store at `path`; SQLite checkpoints every
    /// `checkpointPages` WAL pages. Its changes are to `Task` objects when
    /// the store has that entity (the fixtures' Tasks model), else to the first
    /// entity of its cached model with an attribute: any history store will do
    /// (a copy of a real one too). With `writingRows`, each save also writes the objects' rows,
    /// as Core Data does, when the store has their table (a fixture's, whose columns it knows).
    public init(path: String, checkpointPages: Int = 1000, writingRows: Bool = false) throws {
        var config = Configuration()
        let firstBusyCall = self.firstBusyCall
        config.busyMode = .callback { retries in
            let now = DispatchTime.now().uptimeNanoseconds
            let first = firstBusyCall.withLock { first in
                if first == nil { first = now }
                return first ?? now
            }
            // Give up after 10 s, as an app's busy timeout would.
            guard now - first < 10_000_000_000 else { return false }
            usleep(retries < 10 ? 100 : 1000)
            return true
        }
        let (chosen, model, numbers) = try Self.chooseEntity(path)
        queue = try DatabaseQueue(path: path, configuration: config)
        let mode = try queue.writeWithoutTransaction { db -> String in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(checkpointPages)")
            return try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
        }
        guard mode.lowercased() == "wal" else {
            throw CocoaError(
                .fileReadUnsupportedScheme,
                userInfo: [NSLocalizedDescriptionKey: "\(path): not a WAL store (journal_mode \(mode))"])
        }
        guard let layout = SlotLayout(entity: chosen.name, model: model),
            let slot = layout.slots.first(where: { $0.propertyName == "done" })
                ?? layout.slots.first(where: { $0.role == .attribute })
        else {
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [NSLocalizedDescriptionKey: "\(path): entity \(chosen.name) has no attribute to update"])
        }
        entity = chosen.number
        rootName = chosen.root
        var columns = [UInt8](repeating: 0, count: layout.byteLength)
        columns[slot.index >> 3] |= 0x80 >> UInt8(slot.index & 7)
        updateColumns = Data(columns)
        let table = "Z" + chosen.root.uppercased()
        let column =
            ColumnNames(model: model) { numbers[$0] }.column(entity: chosen.name, property: slot.propertyName)
            ?? ColumnNames.base(slot.propertyName)
        (hasTombstone, namesInStringTable, rows) = try queue.read { db in
            let change = try db.columns(in: "ACHANGE").map { $0.name.uppercased() }
            let transaction = try db.columns(in: "ATRANSACTION").map { $0.name.uppercased() }
            let hasRows =
                try writingRows && db.tableExists(table)
                && db.columns(in: table).contains { $0.name.uppercased() == column }
            return (
                change.contains("ZTOMBSTONE0"),
                transaction.contains("ZAUTHORTS") && transaction.contains("ZCONTEXTNAMETS"),
                hasRows ? (table, column) : nil
            )
        }
        // Past every key history names and every row the table holds.
        let rowTable = rows?.table
        nextPK =
            try queue.read { db in
                let named = try Int64.fetchOne(
                    db, sql: "SELECT COALESCE(MAX(ZENTITYPK), 0) FROM ACHANGE WHERE ZENTITY = ?",
                    arguments: [chosen.number])
                let held = try rowTable.flatMap { try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \($0)") }
                return max(named ?? 0, held ?? 0)
            }
    }

    /// `Task` and the Tasks model when the store has it, else the first entity of the store's cached
    /// model (by number) that has an attribute.
    private static func chooseEntity(_ path: String) throws -> (
        entity: (number: Int64, name: String, root: String), model: ManagedObjectModel, numbers: [String: Int64]
    ) {
        let store = try HistoryStore.open(path)
        defer { store.close() }
        let numbers = Dictionary(store.catalog.entities.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
        func pick(_ e: CatalogEntity) -> (number: Int64, name: String, root: String) {
            (e.number, e.name, store.catalog.root(of: e.number)?.name ?? e.name)
        }
        if let task = store.catalog.entity(named: "Task") { return (pick(task), Scenarios.tasksModel, numbers) }
        guard let model = try store.resolveModel().model else {
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [NSLocalizedDescriptionKey: "\(path): no Task entity and no cached model to choose another"])
        }
        for e in store.catalog.entities
        where SlotLayout(entity: e.name, model: model)?.slots.contains(where: { $0.role == .attribute }) == true {
            return (pick(e), model, numbers)
        }
        throw CocoaError(
            .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(path): no entity with an attribute"])
    }

    /// Commits one transaction; returns its number, the seconds it waited
    /// for a lock and the seconds the whole commit took.
    public func commit(at timestamp: Double) throws -> (number: Int64, lockWait: Double, duration: Double) {
        _ = busyWait()
        let start = DispatchTime.now().uptimeNanoseconds
        let number: Int64 = try queue.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            do {
                let number = (try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(Z_PK), 0) + 1 FROM ATRANSACTION") ?? 1)
                let author = Self.authors[Int(number % Int64(Self.authors.count))]
                if namesInStringTable {
                    try db.execute(
                        sql: """
                            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZCONTEXTNAMETS, ZTIMESTAMP) \
                            VALUES (?, 16002, NULL, ?, ?, ?)
                            """,
                        arguments: [number, try stringID(author, db), try stringID("viewContext", db), timestamp])
                } else {
                    try db.execute(
                        sql: """
                            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHOR, ZCONTEXTNAME, ZTIMESTAMP) VALUES \
                            (?, 16002, NULL, ?, ?, ?)
                            """, arguments: [number, author, "viewContext", timestamp])
                }
                let insert = try db.cachedStatement(
                    sql: hasTombstone
                        ? """
                        INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, \
                        ZTOMBSTONE0)
                        VALUES (16001, NULL, ?, ?, ?, ?, ?, ?)
                        """
                        : """
                        INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS)
                        VALUES (16001, NULL, ?, ?, ?, ?, ?)
                        """)
                func add(_ type: ChangeType, _ pk: Int64, _ columns: Data?, _ tombstone: String?) throws {
                    var values: [DatabaseValueConvertible?] = [type.rawValue, entity, pk, number, columns]
                    if hasTombstone { values.append(tombstone) }
                    try insert.execute(arguments: StatementArguments(values))
                    // The object's row: inserted with the attribute 0, updated to 1, deleted.
                    guard let rows else { return }
                    switch type {
                    case .insert:
                        try db.execute(
                            sql: "INSERT INTO \(rows.table) (Z_PK, Z_ENT, Z_OPT, \(rows.column)) VALUES (?, ?, 1, 0)",
                            arguments: [pk, entity])
                    case .update:
                        try db.execute(
                            sql: "UPDATE \(rows.table) SET \(rows.column) = 1, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?",
                            arguments: [pk])
                    default:
                        try db.execute(sql: "DELETE FROM \(rows.table) WHERE Z_PK = ?", arguments: [pk])
                    }
                }
                for i in 0..<Self.changeCount(ofTransaction: number) {
                    // Insert an object, then update one attribute, then (every third) delete an earlier one, its title
                    // preserved.
                    switch i {
                    case 0:
                        nextPK += 1
                        try add(.insert, nextPK, nil, nil)
                    case 1:
                        try add(.update, nextPK, updateColumns, nil)
                    default:
                        try add(.delete, nextPK - Int64(i), nil, "Task \(nextPK - Int64(i))")
                    }
                }
                try db.execute(
                    sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'TRANSACTION'", arguments: [number])
                try db.execute(
                    sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM ACHANGE) WHERE Z_NAME = 'CHANGE'")
                try db.execute(
                    sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(Z_MAX, ?) WHERE Z_NAME = ?",
                    arguments: [nextPK, rootName])
                try db.execute(sql: "COMMIT")
                return number
            } catch {
                try? db.execute(sql: "ROLLBACK")
                throw error
            }
        }
        let duration = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (number, busyWait(), duration)
    }

    /// Commits `transactions` transactions, one every `interval` seconds
    /// (timestamps one second apart after `startTime`, Cocoa seconds).
    public func run(transactions: Int, interval: Double, startTime: Double) throws -> Report {
        var report = Report(
            transactions: 0, changes: 0, firstTransaction: 0, lastTransaction: 0, maxLockWaitMilliseconds: 0,
            commitsThatWaited: 0, maxCommitMilliseconds: 0, seconds: 0)
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<transactions {
            let result = try commit(at: startTime + Double(i))
            if report.transactions == 0 { report.firstTransaction = result.number }
            report.lastTransaction = result.number
            report.transactions += 1
            report.changes += Self.changeCount(ofTransaction: result.number)
            report.maxLockWaitMilliseconds = max(report.maxLockWaitMilliseconds, result.lockWait * 1000)
            if result.lockWait > 0 { report.commitsThatWaited += 1 }
            report.maxCommitMilliseconds = max(report.maxCommitMilliseconds, result.duration * 1000)
            if interval > 0 { usleep(useconds_t(interval * 1e6)) }
        }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return report
    }

    /// Closes the connection (SQLite checkpoints and removes the WAL when it is the last one).
    public func close() throws { try queue.close() }

    private func stringID(_ name: String, _ db: Database) throws -> Int64 {
        if let id = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?"), arguments: [name])
        {
            return id
        }
        try db.execute(
            sql: "INSERT INTO ATRANSACTIONSTRING (Z_ENT, Z_OPT, ZNAME) VALUES (16003, NULL, ?)", arguments: [name])
        let id = db.lastInsertedRowID
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'TRANSACTIONSTRING'", arguments: [id])
        return id
    }
}
