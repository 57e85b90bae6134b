import Foundation
import HistoryKit

/// `object`: one object's changes, what they add up to, and its current values.
struct ObjectPresenter {
    let history: HistoryPresenter
    /// The store whose objects' URIs are shown.
    let storeUUID: String

    /// The columns of the change table.
    func changeColumns(_ bounds: NumberBounds) -> [Column] {
        [
            Column("Tx", alignRight: true, minWidth: bounds.transactionWidth),
            Column("Time", minWidth: history.time.display(0).cells),
            Column("Author", fit: .wrap(min: 8), importance: .key), Column("Type"),
            Column("Details", fit: .wrap(min: 20)),
        ] + (history.valuesStore == nil ? [] : [Column("Values", fit: .below)])
    }

    func cells(_ tx: Transaction, _ change: Change, notes: ChangeNotes) -> [Cell] {
        [
            Cell(String(tx.number)), Cell(history.time.display(tx.timestamp)), HistoryPresenter.optional(tx.author),
            history.typeCell(change), history.detailsCell(change),
        ] + history.valueCells(notes)
    }

    /// The fields above the changes: which object, its label, whether its row is there.
    func headerFields(_ object: ObjectReference, lookup: ObjectLookup, label: String?) -> [(String, String)] {
        var fields: [(String, String)] = []
        switch lookup {
        case .found(let state):
            let kind = state.object.entityName == object.entityName ? "" : " (a \(state.object.entityName))"
            fields.append(("Object", "\(object)\(kind)"))
            fields.append(("ID", state.object.uri(storeUUID: storeUUID)))
            if let label { fields.append(("Label", HistoryPresenter.quoted(label))) }
            fields.append(
                (
                    "Row",
                    "\(state.table) row \(object.primaryKey)" + (state.version.map { ", version \($0) (Z_OPT)" } ?? "")
                ))
        case .missing(let reason):
            fields.append(("Object", object.description))
            fields.append(("ID", object.uri(storeUUID: storeUUID)))
            if let label { fields.append(("Label", HistoryPresenter.quoted(label))) }
            fields.append(("Row", "none: no longer in the store (\(reason))"))
        }
        return fields
    }

    /// What the changes add up to, in sentences.
    func summary(_ life: ObjectHistory, lookup: ObjectLookup) -> String {
        guard let first = life.first, let last = life.last else {
            return
                """
                No change to this object is in the history: it was last saved before the oldest transaction kept \
                (or before history tracking began).
                """
        }
        let time = history.time
        func at(_ m: ObjectHistory.Moment) -> String {
            "#\(m.transactionNumber) (\(time.display(m.timestamp))\(m.author.map { ", \($0)" } ?? ""))"
        }
        var text =
            "\(plural(life.changeCount, "change")) in \(plural(life.transactionCount, "transaction"))"
            + (life.transactionCount > 1 ? ", from #\(first.transactionNumber) to #\(last.transactionNumber)." : ".")
        if let inserted = life.inserted {
            text += " Inserted in \(at(inserted))."
        } else {
            text += " Its insert is not in the history (purged, or before history tracking began)."
        }
        if let deleted = life.deleted {
            text += " Deleted in \(at(deleted))."
        } else if case .missing = lookup {
            text += " Its row is gone without a delete in the history."
        }
        return text
    }

    /// Columns of the current values table.
    static let valueColumns = [
        Column("Property", fit: .wrap(min: 10), importance: .key), Column("Value", fit: .wrap(min: 20)),
    ]

    /// The current values' rows; an object a relationship points to is shown with its label in `labels`.
    func valueRows(_ state: ObjectState, labels: [ObjectReference: String]) -> [[Cell]] {
        state.properties.map { property in
            [Cell(property.name), valueCell(property.content, labels: labels)]
        }
    }

    private func valueCell(_ content: PropertyValue.Content, labels: [ObjectReference: String]) -> Cell {
        let shown = history.text(content) { object in
            labels[object].map { "\(object) \(HistoryPresenter.quoted($0))" } ?? object.description
        }
        return Cell(shown.text, shown.style)
    }

    /// The current values as a JSON object keyed by property name.
    func writeValues<S: JSONSink>(_ state: ObjectState, to s: inout S) {
        history.writeProperties(state.properties, storeUUID: storeUUID, to: &s)
    }

    /// A moment of the summary as JSON.
    func write<S: JSONSink>(_ moment: ObjectHistory.Moment?, to s: inout S) {
        guard let moment else { return s.null() }
        s.beginObject()
        s.member("transactionNumber", moment.transactionNumber)
        s.member("timestamp", history.time.iso(moment.timestamp))
        s.member("author", moment.author)
        s.endObject()
    }
}
