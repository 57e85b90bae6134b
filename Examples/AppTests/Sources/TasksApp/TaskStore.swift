import Foundation
import GRDB

/// The app's code that saves, standing in for a Core Data stack: it renames a task in one
/// SQLite transaction as Core Data saves it, with its history (a transaction with the saving
/// context's author and name, and an update change whose ZCOLUMNS names the title).
public final class TaskStore {
    private let queue: DatabaseQueue
    /// Who saves: the context's `transactionAuthor` (nil: the app forgot to set it).
    public var author: String?
    public var contextName = "viewContext"

    /// Opens the store at `path` in WAL mode, as Core Data does.
    public init(path: String, author: String?) throws {
        queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
        self.author = author
    }

    /// Sets task `pk`'s title.
    public func rename(task pk: Int64, to title: String) throws {
        try queue.write { db in
            try db.execute(
                sql: "UPDATE ZTASK SET ZTITLE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", arguments: [title, pk])
            let number = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(Z_PK), 0) + 1 FROM ATRANSACTION") ?? 1
            try db.execute(
                sql: """
                    INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZCONTEXTNAMETS, ZTIMESTAMP)
                    VALUES (?, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'TRANSACTION'), 1, ?, ?, ?)
                    """,
                arguments: [
                    number, try author.map { try Self.string($0, db) }, try Self.string(contextName, db),
                    Date().timeIntervalSinceReferenceDate,
                ])
            // Task.title is the eighth property slot of the Tasks model: bit 7 of ZCOLUMNS.
            try db.execute(
                sql: """
                    INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS)
                    VALUES ((SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'CHANGE'), 1, 1,
                            (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Task'), ?, ?, X'0100')
                    """, arguments: [pk, number])
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'TRANSACTION'", arguments: [number])
            try db.execute(
                sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM ACHANGE) WHERE Z_NAME = 'CHANGE'")
        }
    }

    /// Closes the store (the test's scope must end with it closed).
    public func close() throws { try queue.close() }

    /// The row of `name` in ATRANSACTIONSTRING, added when missing.
    private static func string(_ name: String, _ db: Database) throws -> Int64 {
        if let id = try Int64.fetchOne(
            db, sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", arguments: [name])
        {
            return id
        }
        try db.execute(
            sql: """
                INSERT INTO ATRANSACTIONSTRING (Z_ENT, Z_OPT, ZNAME)
                VALUES ((SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'TRANSACTIONSTRING'), 1, ?)
                """, arguments: [name])
        return db.lastInsertedRowID
    }
}
