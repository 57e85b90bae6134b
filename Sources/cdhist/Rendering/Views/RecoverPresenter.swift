import HistoryKit

/// Presents what the saves of a `-wal` hold that the store no longer does.
struct RecoverPresenter {
    let history: HistoryPresenter
    let storeUUID: String
    /// Every value whole in the table (`--all`); JSON always gives every byte of what is recovered.
    var all = false

    func document(_ recovery: Recovery, store: String) -> Document {
        let (log, transactions, objects, unreadable) = (
            recovery.log, recovery.transactions, recovery.objects, recovery.unreadable
        )
        let changes = transactions.reduce(0) { $0 + $1.changes.count }
        var sections: [Document.Section] = [
            .fields(
                title: nil,
                [
                    ("Store", store),
                    (
                        "Saves",
                        log.log.isMissing
                            ? "none: the store has no -wal"
                            : log.log.isEmpty
                                ? "none: the -wal is empty"
                                : "\(plural(log.log.commits.count, "save")) in the -wal"
                    ),
                    (
                        "Recovered",
                        """
                        \(plural(transactions.count, "history transaction")) (\(plural(changes, "change"))) a \
                        later save removed; 
                        """
                            + "\(plural(objects.count, "object")) a save deleted"
                    ),
                ])
        ]
        if !transactions.isEmpty {
            // The save that removed each is a short value (the store each is read from is always the one
            // before that save, said once in the title); an author too long to share the line goes under
            // its row rather than breaking the times and wrapping beside them.
            sections.append(
                .table(
                    title: Self.transactionsTitle,
                    columns: [
                        Column("#", alignRight: true), Column("Time"),
                        Column("Author", fit: .wrap(min: 8), importance: .detail),
                        Column("Changes", alignRight: true), Column("Removed by"),
                    ],
                    rows: transactions.map { r in
                        [
                            Cell("#\(r.transaction.number)"), Cell(history.time.display(r.transaction.timestamp)),
                            HistoryPresenter.optional(r.transaction.author), Cell("\(r.changes.count)"),
                            Self.removal(r.removedBy, r.inexact),
                        ]
                    }))
        }
        if !objects.isEmpty {
            sections.append(
                .table(
                    title: "Objects deleted by a save",
                    columns: [
                        Column("Object", fit: .wrap(min: 12)), Column("Deleted", fit: .wrap(min: 10)),
                        Column("By", fit: .wrap(min: 10)),
                        Column("Values", fit: .below),
                    ],
                    rows: objects.map { o in
                        [
                            Cell(o.object.description), Cell(o.deletedAt.map { history.time.display($0) } ?? "-"),
                            Self.removal(
                                o.deletedBy, o.inexact,
                                detail: o.transactionNumbers.isEmpty
                                    ? " (no history transaction)"
                                    : " (#\(o.transactionNumbers.map(String.init).joined(separator: ", #")))"),
                            Cell(
                                o.state.map { state in
                                    state.properties.map { "\($0.name): \(history.text($0.content, whole: all).text)" }
                                        .joined(separator: "; ")
                                }
                                    ?? "its row before could not be read"),
                        ]
                    }))
            let cut = objects.contains { $0.state?.properties.contains { HistoryPresenter.isCut($0.content) } == true }
            if cut && !all {
                sections.append(
                    .note(
                        """
                        Values longer than \(HistoryPresenter.tableTextLimit) characters or \
                        \(HistoryPresenter.tableBlobLimit) bytes are cut above: --all shows them whole, and \
                        --format json gives every byte.
                        """
                    ))
            }
        }
        // Why a save's states may not be what SQLite wrote: once per save, not on each of its rows.
        var partial: [Int: String] = [:]
        for r in transactions { if let why = r.inexact { partial[r.removedBy] = why } }
        for o in objects { if let why = o.inexact { partial[o.deletedBy] = why } }
        for (save, why) in partial.sorted(by: { $0.key < $1.key }) {
            sections.append(.note("What save \(save) removed is read partially: \(why)."))
        }
        for u in unreadable {
            sections.append(
                .note(
                    """
                    What save \(u.save) removed cannot be read \
                    (\(plural(u.transactionsRemoved, "history transaction")), 
                    """
                        + "\(plural(u.objectsDeleted, "object"))): the store as it was before it is partial, \(u.why).")
            )
        }
        if transactions.isEmpty && objects.isEmpty && unreadable.isEmpty {
            sections.append(
                .note("No save in the -wal removed history or deleted an object: there is nothing to recover from it."))
        }
        for g in log.olderGenerations {
            sections.append(
                .note(
                    """
                    Frames \(g.firstFrame)–\(g.lastFrame) are of an earlier generation of the log \
                    (\(plural(g.pages, "page")), \(plural(g.commits, "commit"))): left behind when the log was \
                    reset, they are the only remnant of what that generation held; what it took is otherwise gone.
                    """
                ))
        }
        let cannot: JSONValue = .array(
            unreadable.map { u in
                .object([
                    ("save", .int(Int64(u.save))), ("transactionsRemoved", .int(Int64(u.transactionsRemoved))),
                    ("objectsDeleted", .int(Int64(u.objectsDeleted))), ("why", .string(u.why)),
                ])
            })
        return Document(
            kind: "recovered",
            json: json(transactions: transactions, objects: objects, log: log, store: store) + [("unreadable", cannot)],
            sections: sections)
    }

    static let transactionsTitle = "History transactions removed by a save (read as the store was before it)"

    /// The save that removed something, marked partial when its states may not be what SQLite wrote
    /// (a note under the tables says why).
    private static func removal(_ save: Int, _ inexact: String?, detail: String = "") -> Cell {
        guard inexact != nil else { return Cell("save \(save)\(detail)") }
        return Cell("save \(save), partial\(detail)", .yellow)
    }

    private func json(
        transactions: [SaveRecovery.Transaction], objects: [SaveRecovery.DeletedObject], log: SaveLog, store: String
    ) -> [(String, JSONValue)] {
        [
            ("store", .string(store)),
            ("storeID", .string(storeUUID)),
            (
                "transactions",
                .array(
                    transactions.map { r in
                        guard
                            case .members(var keys, var values) = history.json(
                                r.transaction, changes: r.changes.map { ($0, .none) })
                        else { return .null }
                        keys.append("recoveredFrom")
                        values.append(
                            .object([
                                ("save", .int(Int64(r.readAt))), ("removedBy", .int(Int64(r.removedBy))),
                                ("exact", .bool(r.inexact == nil)), ("why", .optional(r.inexact)),
                            ]))
                        return .members(keys: keys, values: values)
                    })
            ),
            (
                "objects",
                .array(
                    objects.map { o in
                        let values = JSONTree.build { sink in
                            // What is recovered is given whole: every byte of every value.
                            if let state = o.state {
                                history.writeProperties(
                                    state.properties, storeUUID: storeUUID, blobLimit: nil, to: &sink)
                            } else {
                                sink.null()
                            }
                        }
                        return .object([
                            ("entity", .string(o.object.entityName)),
                            ("objectID", .string(o.object.uri(storeUUID: storeUUID))),
                            ("values", values), ("deletedBy", .int(Int64(o.deletedBy))),
                            ("deletedAt", o.deletedAt.map { .optional(history.time.iso($0)) } ?? .null),
                            ("exact", .bool(o.inexact == nil)), ("why", .optional(o.inexact)),
                            ("transactionNumbers", .array(o.transactionNumbers.map { .int($0) })),
                        ])
                    })
            ),
            (
                "olderGeneration",
                .array(
                    log.olderGenerations.map { g in
                        .object([
                            ("firstFrame", .int(Int64(g.firstFrame))), ("lastFrame", .int(Int64(g.lastFrame))),
                            ("pages", .int(Int64(g.pages))),
                            ("commits", .int(Int64(g.commits))),
                        ])
                    })
            ),
        ]
    }
}
