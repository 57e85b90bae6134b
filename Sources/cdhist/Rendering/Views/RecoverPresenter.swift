import HistoryKit

/// Presents what the saves of a `-wal` hold that the store no longer does.
struct RecoverPresenter {
    let history: HistoryPresenter
    let storeUUID: String

    func document(_ log: SaveLog, transactions: [SaveRecovery.Transaction], objects: [SaveRecovery.DeletedObject], store: String) -> Document {
        let changes = transactions.reduce(0) { $0 + $1.changes.count }
        var sections: [Document.Section] = [.fields(title: nil, [
            ("Store", store),
            ("Saves", "\(plural(log.log.commits.count, "save")) in the -wal"),
            ("Recovered", "\(plural(transactions.count, "history transaction")) (\(plural(changes, "change"))) a later save removed; "
                + "\(plural(objects.count, "object")) a save deleted"),
        ])]
        if !transactions.isEmpty {
            sections.append(.table(title: "History transactions removed by a save", columns: [
                Column("#", alignRight: true), Column("Time"), Column("Author", fit: .wrap(min: 8)), Column("Changes", alignRight: true),
                Column("Removed by", fit: .wrap(min: 10)),
            ], rows: transactions.map { r in
                [Cell("#\(r.transaction.number)"), Cell(history.time.display(r.transaction.timestamp)), HistoryPresenter.optional(r.transaction.author),
                 Cell("\(r.changes.count)"), Self.removal("save \(r.removedBy) (read as after save \(r.readAt))", r.inexact)]
            }))
        }
        if !objects.isEmpty {
            sections.append(.table(title: "Objects deleted by a save", columns: [
                Column("Object", fit: .wrap(min: 12)), Column("Deleted by", fit: .wrap(min: 10)), Column("Values", fit: .below),
            ], rows: objects.map { o in
                [Cell(o.object.description),
                 Self.removal("save \(o.deletedBy)" + (o.transactionNumbers.isEmpty ? " (no history transaction)" : " (#\(o.transactionNumbers.map(String.init).joined(separator: ", #")))"), o.inexact),
                 Cell(o.state.map { state in state.properties.map { "\($0.name): \(history.text($0.content).text)" }.joined(separator: "; ") } ?? "its row before could not be read")]
            }))
        }
        if transactions.isEmpty && objects.isEmpty {
            sections.append(.note("No save in the -wal removed history or deleted an object: there is nothing to recover from it."))
        }
        for g in log.olderGenerations {
            sections.append(.note("Frames \(g.firstFrame)–\(g.lastFrame) are of an earlier generation of the log (\(plural(g.pages, "page")), \(plural(g.commits, "commit"))): left behind when the log was reset, they are the only remnant of what that generation held; what it took is otherwise gone."))
        }
        return Document(kind: "recovered", json: json(transactions: transactions, objects: objects, log: log, store: store), sections: sections)
    }

    /// The save that removed something, with why its states may not be what SQLite wrote.
    private static func removal(_ text: String, _ inexact: String?) -> Cell {
        guard let inexact else { return Cell(text) }
        return Cell(text + "; partial: \(inexact)", .yellow)
    }

    private func json(transactions: [SaveRecovery.Transaction], objects: [SaveRecovery.DeletedObject], log: SaveLog, store: String) -> [(String, JSONValue)] {
        [
            ("store", .string(store)),
            ("storeID", .string(storeUUID)),
            ("transactions", .array(transactions.map { r in
                guard case .members(var keys, var values) = history.json(r.transaction, changes: r.changes) else { return .null }
                keys.append("recoveredFrom")
                values.append(.object([("save", .int(Int64(r.readAt))), ("removedBy", .int(Int64(r.removedBy))),
                                       ("exact", .bool(r.inexact == nil)), ("why", .optional(r.inexact))]))
                return .members(keys: keys, values: values)
            })),
            ("objects", .array(objects.map { o in
                let values = JSONTree.build { sink in
                    if let state = o.state { history.writeProperties(state.properties, storeUUID: storeUUID, to: &sink) } else { sink.null() }
                }
                return .object([
                    ("entity", .string(o.object.entityName)), ("objectID", .string(o.object.uri(storeUUID: storeUUID))),
                    ("values", values), ("deletedBy", .int(Int64(o.deletedBy))), ("exact", .bool(o.inexact == nil)), ("why", .optional(o.inexact)),
                    ("transactionNumbers", .array(o.transactionNumbers.map { .int($0) })),
                ])
            })),
            ("olderGeneration", .array(log.olderGenerations.map { g in
                .object([("firstFrame", .int(Int64(g.firstFrame))), ("lastFrame", .int(Int64(g.lastFrame))), ("pages", .int(Int64(g.pages))),
                         ("commits", .int(Int64(g.commits)))])
            })),
        ]
    }
}
