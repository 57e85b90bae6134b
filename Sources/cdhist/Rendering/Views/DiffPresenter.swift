import Foundation
import HistoryKit

/// `diff`: what differs between two snapshots of a store, as a document.
struct DiffPresenter {
    let time: TimeFormatter
    /// Rows each list shows in a table (nil: all).
    let limit: Int?
    /// Whether a framework's authors (Core Data's migrations) share a row.
    var groupsFamilies = true

    /// One compared store.
    struct Side {
        var path: String
        var storeUUID: String
        var transactions: Int
    }

    func document(_ diff: HistoryDiff, old: Side, new: Side) -> Document {
        var fields: [(String, String)] = [
            ("Old", "\(old.path): \(old.storeUUID), \(plural(old.transactions, "transaction"))"),
            ("New", "\(new.path): \(new.storeUUID), \(plural(new.transactions, "transaction"))"),
            ("Unchanged", plural(diff.unchanged.transactions, "transaction")),
        ]
        let parts: [(String, HistoryDiff.Part)] = [
            ("Removed", diff.removed), ("Added", diff.added), ("Rewritten", diff.rewritten),
        ]
        for (title, part) in parts { fields.append((title, summary(part))) }
        var sections: [Document.Section] = [.fields(title: nil, fields)]
        if diff.isIdentical { sections.append(.note("The histories are identical.")) }
        for (title, part) in parts where part.transactions > 0 {
            let groups = ListSummary.grouped(
                part.authors, author: \.author, families: groupsFamilies ? ListSummary.frameworkFamilies : []
            )
            .sortedDescending(by: { $0.members.reduce(0) { $0 + $1.transactions } })
            let authors = ListSummary.limited(groups, to: limit)
            sections.append(
                .table(
                    title: "\(title): by author",
                    columns: [
                        Column("Author", fit: .wrap(min: 12), importance: .key),
                        Column("Transactions", alignRight: true), Column("Changes", alignRight: true),
                    ],
                    rows: authors.shown.map { g in
                        [
                            g.family == nil ? HistoryPresenter.optional(g.members.first?.author) : Cell(g.label),
                            Cell(String(g.members.reduce(0) { $0 + $1.transactions })),
                            Cell(String(g.members.reduce(0) { $0 + $1.changes })),
                        ]
                    } + (authors.more > 0 ? [[Cell(ListSummary.more(authors.more), .dim), "", ""]] : [])))
            let entities = ListSummary.limited(part.entities, to: limit)
            if !entities.shown.isEmpty {
                sections.append(
                    .table(
                        title: "\(title): by entity",
                        columns: [
                            Column("Entity", fit: .wrap(min: 12), importance: .key),
                            Column("Changes", alignRight: true),
                        ],
                        rows: entities.shown.map { [Cell($0.entity), Cell(String($0.changes))] }
                            + (entities.more > 0 ? [[Cell(ListSummary.more(entities.more), .dim), ""]] : [])))
            }
        }
        if !diff.effects.isEmpty {
            sections.append(
                .table(
                    title: "Net effect of the added transactions on objects",
                    columns: [
                        Column("Entity", fit: .wrap(min: 10), importance: .key), Column("Inserted", alignRight: true),
                        Column("Updated", alignRight: true),
                        Column("Deleted", alignRight: true),
                        Column("Inserted+deleted", alignRight: true, importance: .detail),
                        Column("Properties updated", fit: .wrap(min: 20)),
                    ],
                    rows: diff.effects.map { effect in
                        let shown = ListSummary.limited(effect.properties, to: limit.map { _ in ListSummary.inline })
                        let names =
                            shown.shown.map { "\($0.name) (\($0.objects))" }
                            + (shown.more > 0 ? ["… and \(shown.more) more"] : [])
                        return [
                            Cell(effect.entity), Cell(String(effect.inserted)), Cell(String(effect.updated)),
                            Cell(String(effect.deleted)),
                            Cell(String(effect.insertedAndDeleted)), Cell(names.joined(separator: ", ")),
                        ]
                    }))
        }
        return Document(kind: "diff", json: json(diff, old: old, new: new), sections: sections)
    }

    /// `3 transactions (9 changes), #35 (time) … #37 (time)`, or `none`.
    private func summary(_ part: HistoryDiff.Part) -> String {
        guard part.transactions > 0, let first = part.first, let last = part.last else { return "none" }
        let span = first == last ? end(first) : "\(end(first)) … \(end(last))"
        return "\(plural(part.transactions, "transaction")) (\(plural(part.changes, "change"))), \(span)"
    }

    private func end(_ end: HistoryDiff.Part.End) -> String {
        "#\(end.transactionNumber) (\(time.display(end.timestamp)))"
    }

    private func json(_ diff: HistoryDiff, old: Side, new: Side) -> [(String, JSONValue)] {
        func side(_ s: Side) -> JSONValue {
            .object([
                ("path", .string(s.path)), ("storeID", .string(s.storeUUID)),
                ("transactions", .int(Int64(s.transactions))),
            ])
        }
        func end(_ e: HistoryDiff.Part.End?) -> JSONValue {
            guard let e else { return .null }
            return .object([
                ("transactionNumber", .int(e.transactionNumber)),
                ("timestamp", time.iso(e.timestamp).map { .string($0) } ?? .null),
            ])
        }
        func part(_ p: HistoryDiff.Part, extra: [(String, JSONValue)] = []) -> JSONValue {
            .object(
                [
                    ("transactions", .int(Int64(p.transactions))), ("changes", .int(Int64(p.changes))),
                    ("first", end(p.first)), ("last", end(p.last)),
                    (
                        "authors",
                        .array(
                            p.authors.map {
                                .object([
                                    ("author", $0.author.map { .string($0) } ?? .null),
                                    ("transactions", .int(Int64($0.transactions))),
                                    ("changes", .int(Int64($0.changes))),
                                ])
                            })
                    ),
                    (
                        "entities",
                        .array(
                            p.entities.map {
                                .object([("entity", .string($0.entity)), ("changes", .int(Int64($0.changes)))])
                            })
                    ),
                ] + extra)
        }
        let net = JSONValue.array(
            diff.effects.map { effect in
                .object([
                    ("entity", .string(effect.entity)), ("inserted", .int(Int64(effect.inserted))),
                    ("updated", .int(Int64(effect.updated))),
                    ("deleted", .int(Int64(effect.deleted))),
                    ("insertedAndDeleted", .int(Int64(effect.insertedAndDeleted))),
                    (
                        "properties",
                        .array(
                            effect.properties.map {
                                .object([("name", .string($0.name)), ("objects", .int(Int64($0.objects)))])
                            })
                    ),
                ])
            })
        return [
            ("identical", .bool(diff.isIdentical)), ("old", side(old)), ("new", side(new)),
            (
                "unchanged",
                .object([
                    ("transactions", .int(Int64(diff.unchanged.transactions))),
                    ("changes", .int(Int64(diff.unchanged.changes))),
                ])
            ),
            ("removed", part(diff.removed)), ("added", part(diff.added, extra: [("net", net)])),
            ("rewritten", part(diff.rewritten)),
        ]
    }
}
