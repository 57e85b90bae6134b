import Foundation
import GRDB
import HistoryKit

/// Writes, changes and deletes objects' rows in their root entity's table, each value in the
/// column Core Data gives its property (``ColumnNames``), many-to-many links in join tables.
struct RowWriter {
    let model: ManagedObjectModel
    let numberOf: [String: Int64]
    let columnNames: ColumnNames
    let joins: [StoreWriter.JoinTable]

    init(fixture: FixtureStore, numbers: [(name: String, number: Int64, superNumber: Int64)]) {
        model = fixture.model
        let numberOf = Dictionary(numbers.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
        self.numberOf = numberOf
        columnNames = ColumnNames(model: fixture.model) { numberOf[$0] }
        joins = StoreWriter.joinTables(fixture.model, numbers: numbers)
    }

    /// The root entity's table of `entity`.
    private func table(_ entity: String) -> String {
        "Z" + (model.inheritanceChain(of: entity).first?.name ?? entity).uppercased()
    }

    /// The column of `entity`'s property `name`: that of the entity declaring it (numbered where
    /// siblings share the name).
    private func column(_ entity: String, _ name: String) -> String {
        model.inheritanceChain(of: entity).last { $0.property(named: name) != nil }
            .flatMap { columnNames.column(entity: $0.name, property: name) } ?? ColumnNames.base(name)
    }

    private static func argument(_ value: StoredValue?) -> DatabaseValueConvertible? {
        switch value {
        case .integer(let n)?: return n
        case .real(let d)?: return d
        case .text(let t)?: return t
        case .blob(let b)?: return Data(b)
        case nil: return nil
        }
    }

    func insert(_ row: FixtureStore.Row, _ db: Database) throws {
        let names = row.values.keys.sorted()
        let columns = (["Z_PK", "Z_ENT", "Z_OPT"] + names.map { column(row.entity, $0) }).joined(separator: ", ")
        let values: [DatabaseValueConvertible?] =
            [row.primaryKey, numberOf[row.entity], row.version] + names.map { Self.argument(row.values[$0]) }
        try db.execute(
            sql:
                """
                INSERT INTO \(table(row.entity)) (\(columns)) VALUES \
                (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))
                """,
            arguments: StatementArguments(values))
        for (relationship, keys) in row.links {
            let chain = model.inheritanceChain(of: row.entity).map(\.name)
            for join in joins {
                let isLow = chain.contains(join.lowEntity) && join.lowRelationship == relationship
                guard
                    isLow
                        || model.allProperties(of: row.entity).contains(where: {
                            $0.name == relationship && $0.relationship?.inverseName == join.lowRelationship
                        })
                else { continue }
                for key in keys {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO \(join.name) (\(join.lowColumn), \(join.highColumn)) VALUES (?, ?)",
                        arguments: isLow ? [row.primaryKey, key] : [key, row.primaryKey])
                }
            }
        }
    }

    /// Sets `row`'s values on the existing row, and counts a version (`Z_OPT`) as Core Data does.
    func update(_ row: FixtureStore.Row, _ db: Database) throws {
        let names = row.values.keys.sorted()
        let assignments = (names.map { column(row.entity, $0) + " = ?" } + ["Z_OPT = Z_OPT + 1"]).joined(
            separator: ", ")
        try db.execute(
            sql: "UPDATE \(table(row.entity)) SET \(assignments) WHERE Z_PK = ?",
            arguments: StatementArguments(names.map { Self.argument(row.values[$0]) } + [row.primaryKey]))
    }

    func delete(_ row: FixtureStore.Row, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM \(table(row.entity)) WHERE Z_PK = ?", arguments: [row.primaryKey])
    }
}
