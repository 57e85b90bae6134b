import Foundation
import HistoryKit

/// Presents purge previews and results.
struct PurgePresenter {
    let time: TimeFormatter
    /// Rows a long list shows (nil: all), and whether a framework's authors share a row (tables).
    var limit: Int? = nil
    var groupsFamilies = false

    /// `actors` were checked for breakage (nil: none given); `safeBefore` is a cut-off that breaks none of them.
    func preview(
        _ p: PurgePreview, store: String, rule: String, notes: [String] = [], executing: Bool, actors: Int? = nil,
        safeBefore: String? = nil
    ) -> Document {
        let (strings, moreStrings) = ListSummary.limited(
            p.stringsBecomingUnused, to: limit.map { _ in ListSummary.inline })
        let quotedStrings =
            strings.map { "\"\($0)\"" }.joined(separator: ", ")
            + (moreStrings > 0 ? " " + ListSummary.more(moreStrings) : "")
        var fields: [(String, String)] = [
            ("Store", store),
            ("Rule", rule),
        ]
        for note in notes { fields.append(("Cleaner", note)) }
        fields += [
            ("Cut-off", Self.cut(p.cut, everyDate: p.query.before == nil, time: time)),
            (
                "Would delete",
                "\(plural(p.transactionCount, "transaction")) and \(plural(p.changeCount, "change"))"
                    + (p.numbers.map {
                        """
                         (#\($0.lowerBound)…#\($0.upperBound), \(time.display(p.timestamps?.lowerBound)) to \
                        \(time.display(p.timestamps?.upperBound)))
                        """
                    } ?? "")
            ),
            (
                "Survives",
                "\(plural(p.survivingTransactions, "transaction")) and \(plural(p.survivingChanges, "change"))"
                    + (p.oldestSurvivor.map { "; the oldest is #\($0.number) (\(time.display($0.timestamp)))" } ?? "")
            ),
            (
                "Space",
                """
                about \(ByteCount.text(p.reclaimableBytes)) freed inside the file; the file only shrinks after \
                VACUUM (--vacuum)
                """
            ),
            (
                "Strings",
                p.stringsBecomingUnused.isEmpty
                    ? "none become unused"
                    : "\(p.stringsBecomingUnused.count) become unused (\(quotedStrings)); kept unless --prune-strings"
            ),
        ]
        if p.cloudKitTransactions > 0 {
            fields.append(
                (
                    "CloudKit",
                    """
                    \(plural(p.cloudKitTransactions, "transaction")) by NSCloudKitMirroringDelegate would be \
                    deleted; Apple advises against purging history of a store mirrored with CloudKit (it can \
                    reset sync)
                    """
                ))
        }
        for c in p.consequences { fields.append(("Breaks", "\(c.actor) (\(c.status.rawValue)): \(c.message)")) }
        for r in p.hiddenReaders { fields.append(("May break", HiddenReaderText.purgeWarning(r))) }
        if p.consequences.isEmpty {
            fields.append(
                (
                    "Breaks",
                    actors.map { "none of the \($0) actor\($0 == 1 ? "" : "s") with a position" }
                        ?? "nothing cdhist knows of: no actor given (--defaults, --token, --group-container)"
                ))
        }
        if !executing {
            fields.append(
                (
                    "Preview",
                    p.consequences.isEmpty
                        ? "nothing was changed; add --execute to purge (a backup is written first)"
                        : "nothing was changed; --execute refuses a purge that breaks an actor unless --allow-expire"
                            + (safeBefore.map { "; --before \($0) breaks none of them" } ?? "")
                ))
        }
        let json: [(String, JSONValue)] = [
            ("store", .string(store)),
            ("rule", .string(rule)),
            ("ruleNotes", .array(notes.map { .string($0) })),
            ("cutoff", .optional(p.cut?.date.flatMap { time.iso($0) })),
            ("cutoffTransaction", .optional(p.cut?.transaction)),
            ("transactionCount", .int(Int64(p.transactionCount))),
            ("changeCount", .int(Int64(p.changeCount))),
            ("firstTransactionNumber", .optional(p.numbers?.lowerBound)),
            ("lastTransactionNumber", .optional(p.numbers?.upperBound)),
            ("firstTimestamp", .optional(p.timestamps.flatMap { time.iso($0.lowerBound) })),
            ("lastTimestamp", .optional(p.timestamps.flatMap { time.iso($0.upperBound) })),
            ("survivingTransactionCount", .int(Int64(p.survivingTransactions))),
            ("survivingChangeCount", .int(Int64(p.survivingChanges))),
            ("oldestSurvivingTransaction", .optional(p.oldestSurvivor?.number)),
            ("reclaimableBytes", .int(p.reclaimableBytes)),
            ("stringsBecomingUnused", .array(p.stringsBecomingUnused.map { .string($0) })),
            ("stringsAlreadyUnused", .int(Int64(p.stringsAlreadyUnused))),
            ("cloudKitTransactions", .int(Int64(p.cloudKitTransactions))),
            (
                "byAuthor",
                .array(
                    p.byAuthor.map {
                        .object([
                            ("author", .optional($0.author)), ("transactions", .int(Int64($0.transactions))),
                            ("changes", .optional($0.changes.map(Int64.init))),
                        ])
                    })
            ),
            (
                "byEntity",
                p.byEntity.map { entities in
                    .array(
                        entities.map { e in
                            .object([
                                ("entity", .optional(e.entity)), ("entityNumber", .optional(e.entityNumber)),
                                ("inserts", .int(Int64(e.counts.inserts))), ("updates", .int(Int64(e.counts.updates))),
                                ("deletes", .int(Int64(e.counts.deletes))),
                            ])
                        })
                } ?? .null
            ),
            ("consequences", .array(p.consequences.map(Self.json))),
            ("hiddenReaders", .array(p.hiddenReaders.map(HiddenReaderText.json))),
            ("executed", .bool(false)),
        ]
        let counted = p.byEntity != nil
        var authorColumns = [Column("Author", fit: .wrap(min: 12)), Column("Transactions", alignRight: true)]
        if counted { authorColumns.append(Column("Changes", alignRight: true)) }
        let groups = ListSummary.grouped(
            p.byAuthor, author: \.author, families: groupsFamilies ? ListSummary.frameworkFamilies : [])
        let (shownGroups, moreGroups) = ListSummary.limited(groups, to: limit)
        var authorRows: [[Cell]] = shownGroups.map { g in
            let changes = g.members.compactMap(\.changes)
            return [
                g.family == nil ? HistoryPresenter.optional(g.members.first?.author) : Cell(g.label),
                Cell(String(g.members.reduce(0) { $0 + $1.transactions })),
            ]
                + (counted ? [Cell(String(changes.reduce(0, +)))] : [])
        }
        if moreGroups > 0 { authorRows.append([Cell(ListSummary.more(moreGroups))]) }
        var sections: [Document.Section] = [
            .fields(title: nil, fields),
            .table(
                title: "By author" + (counted ? "" : " (changes per author and by entity: add --breakdown)"),
                columns: authorColumns, rows: authorRows),
        ]
        if let entities = p.byEntity {
            let (shown, more) = ListSummary.limited(entities, to: limit)
            sections.append(
                .table(
                    title: "By entity",
                    columns: [
                        Column("Entity", flexible: true), Column("Inserts", alignRight: true),
                        Column("Updates", alignRight: true), Column("Deletes", alignRight: true),
                    ],
                    rows: shown.map {
                        [
                            Cell($0.entity ?? $0.entityNumber.map { "Z_ENT \($0)" } ?? "ZENTITY not an integer"),
                            Cell(String($0.counts.inserts)),
                            Cell(String($0.counts.updates)), Cell(String($0.counts.deletes)),
                        ]
                    }
                        + (more > 0 ? [[Cell(ListSummary.more(more))]] : [])))
        }
        return Document(kind: "purge-preview", json: json, sections: sections)
    }

    /// The cut-off in words: the date, and the transaction the cut falls before; `everyDate`:
    /// there is no bound (a cleaner that deletes its author's history at every date).
    static func cut(_ cut: PurgePreview.Cut?, everyDate: Bool = false, time: TimeFormatter) -> String {
        guard let cut else {
            return everyDate
                ? "none (no date bound): every transaction of the selected authors" : "none: nothing is selected"
        }
        let date = cut.date.map { time.display($0) }
        switch (date, cut.transaction) {
        case (let date?, let n?): return "\(date), before #\(n)"
        case (let date?, nil): return "\(date), after every transaction"
        case (nil, let n?): return "before #\(n), after every transaction"
        case (nil, nil): return "none"
        }
    }

    /// An actor a purge would break, as JSON (purge previews, and each cleaner of `actors`).
    static func json(_ c: Consequence) -> JSONValue {
        .object([
            ("actor", .string(c.actor)), ("kind", .string(c.kind.rawValue)), ("status", .string(c.status.rawValue)),
            ("message", .string(c.message)),
        ])
    }

    func result(_ r: PurgeResult, store: String) -> Document {
        Document(
            kind: "purge-result",
            json: [
                ("store", .string(store)),
                ("executed", .bool(true)),
                ("backup", .optional(r.backupPath)),
                ("deletedTransactions", .int(Int64(r.deletedTransactions))),
                ("deletedChanges", .int(Int64(r.deletedChanges))),
                ("prunedStrings", .int(Int64(r.prunedStrings))),
                ("vacuumed", .bool(r.vacuumed)),
                ("bytesBefore", .int(r.bytesBefore)),
                ("bytesAfter", .int(r.bytesAfter)),
                ("integrityCheck", .string("ok")),
                ("earlierPurgeStopped", .bool(r.earlierPurgeStopped)),
                ("unfinishedBackups", .array(r.unfinishedBackups.map { .string($0) })),
            ],
            sections: [
                .fields(
                    title: "Purged",
                    [
                        (
                            "Deleted",
                            "\(plural(r.deletedTransactions, "transaction")) and \(plural(r.deletedChanges, "change"))"
                        ),
                        ("Strings pruned", String(r.prunedStrings)),
                        ("Backup", r.backupPath ?? "none (--no-backup)"),
                        ("Check", "PRAGMA quick_check ok; counts match the preview"),
                        (
                            "File",
                            "\(ByteCount.text(r.bytesBefore)) → \(ByteCount.text(r.bytesAfter))"
                                + (r.vacuumed ? " (after VACUUM)" : " (run with --vacuum to shrink it)")
                        ),
                    ])
            ] + leftovers(r))
    }

    /// What an earlier purge that was stopped left: said after the result, never removed.
    private func leftovers(_ r: PurgeResult) -> [Document.Section] {
        (r.earlierPurgeStopped
            ? [
                .note(
                    """
                    An earlier purge of this store was stopped before it finished; SQLite had rolled back what it \
                    had not committed.
                    """
                )
            ] : [])
            + r.unfinishedBackups.map {
                .note("\($0) is a backup a stopped purge did not finish: it is not usable; remove it.")
            }
    }
}
