import HistoryKit

/// `deleted`: each deleted object with when and by whom, its tombstone and label; then the
/// objects gone without a recorded delete, marked as such.
struct DeletedPresenter {
    let history: HistoryPresenter
    /// Labels objects (from their tombstone, or an earlier copy of the store); nil: none.
    let labeler: ObjectLabeler?

    /// The columns of the rows of `kind` in a table (an object gone without a recorded delete is
    /// shown with its last change).
    func columns(_ bounds: NumberBounds, kind: DeletedObject.Kind) -> [Column] {
        let gone = kind == .goneWithoutDelete
        return [
            Column("Entity", fit: .wrap(min: 8), importance: .key), Column("PK", alignRight: true, minWidth: bounds.objectWidth),
            Column(gone ? "Last change" : "Time", minWidth: history.time.display(0).cells), Column("Tx", alignRight: true, minWidth: bounds.transactionWidth),
            Column(gone ? "Last by" : "By", fit: .wrap(min: 8)),
        ] + (labeler == nil ? [] : [Column("Label", fit: .wrap(min: 10))]) + [Column(gone ? "History" : "Tombstone", fit: .wrap(min: 20))]
    }

    /// The title above the objects gone without a recorded delete, in a table.
    static let goneTitle = "Gone without a recorded delete: objects history shows whose rows are no longer in the store (the delete was purged since, or made outside Core Data)"

    func label(_ object: DeletedObject) -> String? {
        guard let labeler else { return nil }
        if let change = object.change { return try? labeler.label(change) }
        return try? labeler.earlierLabel(entity: object.entityName, primaryKey: object.entityPK)
    }

    func cells(_ object: DeletedObject, label: String?) -> [Cell] {
        let tx = object.transaction
        var cells = [Cell(object.entityName), Cell(String(object.entityPK)), Cell(history.time.display(tx.timestamp)), Cell(String(tx.number)),
                     HistoryPresenter.optional(HistoryPresenter.who(tx))]
        if labeler != nil { cells.append(label.map { Cell(HistoryPresenter.quoted($0)) } ?? Cell("-", .dim)) }
        if let change = object.change {
            cells.append(history.detailsCell(change))
        } else {
            let history = "\(object.changeCount) change\(object.changeCount == 1 ? "" : "s"), #\(object.firstTransactionNumber)…#\(tx.number)"
            cells.append(Cell(history, .yellow))
        }
        return cells
    }

    /// An object as a record of the list; formatted on another thread as well (it reads only the
    /// presenter's time formatter and whether it labels, never the labeler).
    struct Record: ListRecord, @unchecked Sendable {
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
            s.member("changedObjectID", object.change?.changedObjectID
                     ?? ObjectReference(entityName: object.entityName, primaryKey: object.entityPK).uri(storeUUID: tx.storeUUID))
            s.member("label", label)
            s.member("transactionNumber", tx.number)
            presenter.history.writeTime(tx, to: &s)
            presenter.history.writeNames(tx, to: &s)
            s.member("changeID", object.change?.changeID)
            s.key("tombstone")
            if let change = object.change { presenter.history.writeTombstone(change.tombstone, to: &s) } else { s.null() }
            s.member("changeCount", object.changeCount)
            s.member("firstTransactionNumber", object.firstTransactionNumber)
            s.endObject()
        }
    }

    func record(_ object: DeletedObject, label: String?) -> Record { Record(presenter: self, object: object, label: label) }
}
