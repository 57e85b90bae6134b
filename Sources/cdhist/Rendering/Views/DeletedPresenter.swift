import HistoryKit

/// `deleted`: each deleted object with when and by whom, its tombstone and label; then the
/// objects gone without a recorded delete, marked as such.
struct DeletedPresenter {
    let history: HistoryPresenter
    /// Whether objects are shown with their labels (from their tombstone, or an earlier copy of
    /// the store: ``ObjectLabeler/label(of:)``).
    let labels: Bool

    /// The columns of the rows of `kind` in a table (an object gone without a recorded delete is
    /// shown with its last change). An entity's name is never broken; a label or tombstone too
    /// wide for its column goes under its row, whole.
    func columns(_ bounds: NumberBounds, kind: DeletedObject.Kind) -> [Column] {
        let gone = kind == .goneWithoutDelete
        return [
            Column("Entity", importance: .key), Column("PK", alignRight: true, minWidth: bounds.objectWidth),
            Column(gone ? "Last change" : "Time", minWidth: history.time.display(0).cells),
            Column("Tx", alignRight: true, minWidth: bounds.transactionWidth),
            Column(gone ? "Last by" : "By", fit: .wrap(min: 8)),
        ] + (labels ? [Column("Label", fit: .value(min: 10))] : [])
            + [gone ? Column("History", fit: .wrap(min: 20)) : Column("Tombstone", fit: .value(min: 20))]
    }

    /// The per-entity summary's columns: how many deleted (and how many of those kept tombstone
    /// values), by which transactions, and how many gone without a recorded delete.
    static let summaryColumns = [
        Column("Entity", importance: .key), Column("Deleted", alignRight: true), Column("Tombstone values"),
        Column("Deleted by", fit: .wrap(min: 8)), Column("Gone", alignRight: true),
    ]

    func summaryCells(_ entity: DeletionSummary.Entity) -> [Cell] {
        let values: Cell
        switch entity.withTombstoneValues {
        case _ where entity.deleted == 0: values = Cell("-", .dim)
        case 0: values = Cell("none kept", .dim)
        case entity.deleted: values = Cell("all")
        default: values = Cell("\(entity.withTombstoneValues) of \(entity.deleted)")
        }
        let by: Cell =
            switch (entity.firstDelete, entity.lastDelete) {
            case (let first?, let last?) where first == last: Cell("#\(first)")
            case (let first?, let last?): Cell("#\(first)…#\(last)")
            default: Cell("-", .dim)
            }
        return [Cell(entity.name), Cell(String(entity.deleted)), values, by, Cell(String(entity.goneWithoutDelete))]
    }

    /// The line above the summary: how many objects of how many entities.
    static func headline(_ summary: DeletionSummary) -> String {
        let deleting = summary.entities.filter { $0.deleted > 0 }.count
        let losing = summary.entities.filter { $0.goneWithoutDelete > 0 }.count
        var text = "\(plural(summary.deleted, "object")) deleted in \(entities(deleting))"
        if summary.goneWithoutDelete > 0 {
            text +=
                "; \(plural(summary.goneWithoutDelete, "object")) of \(entities(losing)) gone without a recorded delete"
        }
        return text + "."
    }

    private static func entities(_ n: Int) -> String { n == 1 ? "1 entity" : "\(n) entities" }

    /// The summary as JSON gives it, before the list.
    static func summaryJSON(_ summary: DeletionSummary) -> JSONValue {
        .array(
            summary.entities.map { e in
                .object([
                    ("entity", .string(e.name)), ("entityNumber", .int(e.number)), ("deleted", .int(Int64(e.deleted))),
                    ("withTombstoneValues", .int(Int64(e.withTombstoneValues))),
                    ("goneWithoutDelete", .int(Int64(e.goneWithoutDelete))),
                    ("firstDeleteTransaction", .optional(e.firstDelete)),
                    ("lastDeleteTransaction", .optional(e.lastDelete)),
                ])
            })
    }

    /// The title above the objects gone without a recorded delete, in a table.
    static let goneTitle =
        """
        Gone without a recorded delete: objects history shows whose rows are no longer in the store (the delete \
        was purged since, or made outside Core Data)
        """

    func cells(_ object: DeletedObject, label: String?) -> [Cell] {
        let tx = object.transaction
        var cells = [
            Cell(object.entityName), Cell(String(object.entityPK)), Cell(history.time.display(tx.timestamp)),
            Cell(String(tx.number)),
            HistoryPresenter.optional(HistoryPresenter.who(tx)),
        ]
        if labels { cells.append(label.map { Cell(HistoryPresenter.quoted($0)) } ?? Cell("-", .dim)) }
        if let change = object.change {
            // That an entity keeps no tombstone values the summary says once, not every row.
            cells.append(
                change.tombstone.isEmpty && change.warnings.isEmpty ? Cell("-", .dim) : history.detailsCell(change))
        } else {
            let history =
                """
                \(object.changeCount) change\(object.changeCount == 1 ? "" : "s"), \
                #\(object.firstTransactionNumber)…#\(tx.number)
                """
            cells.append(Cell(history, .yellow))
        }
        return cells
    }

    /// An object as a record of the list; formatted on another thread as well (it reads only the
    /// presenter's time formatter and whether it labels).
    struct Record: ListRecord, Sendable {
        let presenter: DeletedPresenter
        let object: DeletedObject
        let label: String?

        var cells: [Cell] { presenter.cells(object, label: label) }

        func write<S: JSONSink>(format: String?, to s: inout S) {
            let tx = object.transaction
            s.beginObject()
            if let format { s.member("format", format) }
            s.member("status", object.kind.rawValue)
            s.member("entity", object.entityName)
            s.member("entityNumber", object.entityNumber)
            s.member("entityPK", object.entityPK)
            s.member(
                "changedObjectID",
                object.change?.changedObjectID
                    ?? ObjectReference(entityName: object.entityName, primaryKey: object.entityPK).uri(
                        storeUUID: tx.storeUUID))
            s.member("label", label)
            s.member("transactionNumber", tx.number)
            presenter.history.writeTime(tx, to: &s)
            presenter.history.writeNames(tx, to: &s)
            s.member("changeID", object.change?.changeID)
            s.key("tombstone")
            if let change = object.change {
                presenter.history.writeTombstone(change.tombstone, to: &s)
            } else {
                s.null()
            }
            s.member("changeCount", object.changeCount)
            s.member("firstTransactionNumber", object.firstTransactionNumber)
            s.endObject()
        }
    }

    func record(_ object: DeletedObject, label: String?) -> Record {
        Record(presenter: self, object: object, label: label)
    }
}
