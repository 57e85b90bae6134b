import HistoryKit

extension AppHistory {
    /// A mark of the store's history as it is now: run the app's code, then read what it wrote
    /// with ``HistoryMark/written(modelPath:)`` (or ``writtenSince(_:)``).
    public func mark() throws -> HistoryMark { try HistoryMark(store) }

    /// The transactions written since `mark`, oldest first, with their changes and, while the
    /// store's `-wal` holds their saves, each object's values before and after.
    public func writtenSince(_ mark: HistoryMark) throws -> [WrittenTransaction] {
        try mark.written(modelPath: modelPath)
    }
}

extension Array where Element == WrittenTransaction {
    /// Records a test failure for each transaction saved without a `transactionAuthor`, which
    /// an actor's merge and a cleaner's author filter cannot then tell apart.
    public func expectEveryTransactionHasAnAuthor(
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        for written in self where written.transaction.author == nil {
            TestFailure.record(
                "\(Self.describe(written)) has no author (set the context's transactionAuthor)", at: location)
        }
    }

    /// Records a test failure for each change that `author`'s transactions made to an entity
    /// not in `entities`.
    public func expect(
        author: String, touchedOnly entities: Set<String>, fileID: String = #fileID,
        filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        for written in self where written.transaction.author == author {
            for change in written.changes.map(\.change) where !entities.contains(change.entityName ?? "") {
                let object = change.changedObjectID ?? "an object of entity \(change.entityNumber)"
                TestFailure.record(
                    """
                    \(Self.describe(written)) \(change.changeType) \(object): \(author) may touch only \
                    \(Self.list(entities))
                    """, at: location)
            }
        }
    }

    /// Records a test failure unless exactly one update of `object` (its URI, or `Entity/pN`) was
    /// written, and it changed exactly `properties`.
    public func expect(
        update object: String, changed properties: Set<String>, fileID: String = #fileID,
        filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let updates = flatMap { written in
            written.changes.filter { $0.change.changeType == .update && Self.names($0.change, object) }
                .map { (written, $0.change) }
        }
        guard updates.count == 1, let (written, change) = updates.first else {
            TestFailure.record(
                "\(updates.count) updates of \(object) were written, not one (\(count) transactions since the mark)",
                at: location)
            return
        }
        let changed = Set(change.updatedProperties ?? [])
        guard changed != properties else { return }
        TestFailure.record(
            """
            \(Self.describe(written)) updated \(object)'s \(Self.list(changed)), not exactly \(Self.list(properties))
            """, at: location)
    }

    private static func list(_ names: Set<String>) -> String {
        names.isEmpty ? "no property" : names.sorted().joined(separator: ", ")
    }

    /// Whether `change` is of `object`: its URI, or `Entity/pN`.
    private static func names(_ change: Change, _ object: String) -> Bool {
        change.changedObjectID == object || "\(change.entityName ?? "")/p\(change.entityPK)" == object
    }

    /// A transaction as `cdhist` names it: `#35 by 'widget' (widgetContext)`.
    static func describe(_ written: WrittenTransaction) -> String {
        let t = written.transaction
        return "#\(t.number)" + (t.author.map { " by '\($0)'" } ?? "") + (t.contextName.map { " (\($0))" } ?? "")
    }
}
