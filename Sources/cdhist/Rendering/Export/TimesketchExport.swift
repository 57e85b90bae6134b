import Foundation
import HistoryKit

/// `export --format timesketch`: one JSON line per change, an event as Timesketch imports it
/// (`message`, `datetime`, `timestamp_desc`, `timestamp` in microseconds since 1970), then the
/// transaction's and the change's fields as `export` writes them, and the store's path as
/// `filename` (as plaso names an event's source file), and `atSave` when the store is read at a
/// save. Lines gather in ``bytes``.
struct TimesketchExport {
    let presenter: HistoryPresenter
    /// The store as the user named it (inside a backup or an archive, its name there).
    let source: String
    /// The save the store is read at (``SaveStamp``), which every event names; nil: as it is.
    let atSave: String?
    var bytes: [UInt8] = []
    private var line = JSONBytes(capacity: 1024)

    static let recorded = "Core Data change recorded"
    static let undated = "Core Data change recorded (transaction time unreadable)"
    static let dataType = "coredata:history:change"

    init(presenter: HistoryPresenter, source: String, atSave: String? = nil) {
        self.presenter = presenter
        self.source = source
        self.atSave = atSave
        bytes.reserveCapacity(OrderedOutput.writeThreshold * 2)
    }

    /// The transaction's time as microseconds since 1970 (nil: none, or outside the years 1–9999).
    static func microseconds(_ cocoa: Double?) -> Int64? {
        guard let cocoa, cocoa.isFinite else { return nil }
        let micro = ((cocoa + Date.timeIntervalBetween1970AndReferenceDate) * 1_000_000).rounded()
        // Years 1 to 9999.
        guard micro >= -62_135_596_800_000_000, micro < 253_402_300_800_000_000 else { return nil }
        return Int64(micro)
    }

    /// `micro` as ISO 8601 UTC with its six digits of fraction (the very instant `timestamp` gives).
    static func datetime(_ micro: Int64) -> String {
        let seconds = micro >= 0 ? micro / 1_000_000 : (micro - 999_999) / 1_000_000
        let fraction = String(micro - seconds * 1_000_000)
        let whole = TimeFormatter.civil(Double(seconds), separator: "T", utc: true) ?? "1970-01-01T00:00:00.000Z"
        return whole.dropLast(4) + String(repeating: "0", count: 6 - fraction.count) + fraction + "Z"
    }

    /// Adds one line per change of `tx`; `seen` is told of each, and `spill` is handed ``bytes``
    /// after each line (it may write them out and empty them).
    mutating func write(
        _ tx: Transaction, _ changes: NotedChanges, seen: (Change) -> Void, spill: (inout [UInt8]) throws -> Void
    ) throws {
        let micro = Self.microseconds(tx.timestamp)
        let datetime = micro.map(Self.datetime) ?? "1970-01-01T00:00:00.000000Z"
        try changes.forEach { change, notes in
            seen(change)
            line.reset()
            line.beginObject()
            line.member("message", message(change, notes, tx))
            line.member("datetime", datetime)
            line.member("timestamp", micro ?? 0)
            line.member("timestamp_desc", micro == nil ? Self.undated : Self.recorded)
            line.member("data_type", Self.dataType)
            line.member("filename", source)
            if let atSave { line.member("atSave", atSave) }
            line.member("format", jsonFormatTag)
            line.member("transactionNumber", tx.number)
            line.member("cocoaTimestamp", tx.timestamp)
            presenter.writeNames(tx, to: &line)
            line.member("storeID", tx.storeUUID)
            line.member("changeID", change.changeID)
            presenter.writeMembers(change, notes: notes, to: &line)
            line.endObject()
            bytes += line.bytes
            bytes.append(0x0A)
            try spill(&bytes)
        }
    }

    /// "ICNote p11 'Groceries' updated: title, modificationDate by com.apple.mobilenotes".
    private func message(_ change: Change, _ notes: ChangeNotes, _ tx: Transaction) -> String {
        var text = (change.entityName ?? "Z_ENT \(change.entityNumber)") + " p\(change.entityPK)"
        if presenter.labels, let label = notes.label { text += " " + HistoryPresenter.quoted(label) }
        switch change.changeType {
        case .insert: text += " inserted"
        case .update:
            text += " updated"
            let names = HistoryPresenter.updatedNames(change)
            if !names.isEmpty { text += ": " + names.joined(separator: ", ") }
        case .delete:
            text += " deleted"
            if !change.tombstone.isEmpty {
                text += " (tombstone " + presenter.tombstoneText(change.tombstone, textLimit: 60, blobLimit: 16) + ")"
            }
        case .unknown: text += " changed (type \(change.changeType.description))"
        }
        if let who = HistoryPresenter.who(tx) { text += " by " + who }
        if presenter.valuesStore != nil, let found = notes.values {
            let lines = presenter.valueLines(found)
            if !lines.isEmpty {
                text += "; " + HistoryPresenter.valueSource(found) + ": " + lines.joined(separator: "; ")
            }
        }
        return text
    }
}
