import Foundation
import HistoryKit

/// `info`: what the store is and how much history it holds, as a document.
struct InfoPresenter {
    let time: TimeFormatter

    /// The summary of `store` (also the first section of `report`).
    func document(store: HistoryStore, stats: HistoryStatistics, model: ModelResolution) -> Document {
        let files = store.files
        let space = stats.space
        // At a save, the -wal is read only through that save's commit.
        let walBytes = store.savePoint?.walBytes ?? files.walSize
        let fileBytes = files.mainSize + (walBytes ?? 0)
        let share = space.databaseBytes > 0 ? Double(space.historyBytes) / Double(space.databaseBytes) : 0
        let traces = stats.purgeTraces
        let modelText: String = {
            guard let loaded = model.model else { return "none (\(model.problem?.text ?? "unknown"))" }
            return
                """
                \(model.source?.description ?? "?") (\(loaded.entities.count) \
                entit\(loaded.entities.count == 1 ? "y" : "ies"))
                """
        }()
        var traceText: [String] = []
        if traces.startsAfterFirst, let first = stats.transactionNumbers?.lowerBound {
            traceText.append("first transaction is \(first), not 1")
        }
        if traces.highWaterMarkAboveLast, let mark = traces.transactionHighWaterMark {
            traceText.append("Z_MAX \(mark) above the last transaction \(stats.transactionNumbers?.upperBound ?? 0)")
        }
        if traces.transactionGaps > 0 { traceText.append("\(traces.transactionGaps) numbers missing inside the range") }
        if traces.migrationAtCut != nil, let first = stats.transactionNumbers?.lowerBound {
            traceText.append(
                """
                the first transaction, #\(first), is Core Data's schema migration: a migration that removed \
                entities history named truncates history before it
                """
            )
        }

        var fields: [(String, String)] = [
            ("Store", store.path),
            ("UUID", store.storeUUID),
            ("Store type", store.metadata.storeType ?? "-"),
            ("Framework version", store.metadata.frameworkVersion ?? "-"),
            (
                "Model versions",
                store.metadata.modelVersionIdentifiers.map { $0.isEmpty ? "(an empty identifier)" : $0 }.joined(
                    separator: ", ")
            ),
            ("Model", modelText),
            ("Entities", String(store.catalog.entities.count)),
            ("Main file", ByteCount.text(files.mainSize)),
            (
                "WAL",
                walBytes.map { bytes in
                    ByteCount.text(bytes)
                        + (store.savePoint.map { at in
                            """
                            , read through save \(at.save) of \(at.of); the file holds \
                            \(ByteCount.text(files.walSize ?? 0))
                            """
                        } ?? "")
                } ?? "none"
            ),
            (
                "SHM",
                files.shmSize.map(ByteCount.text)
                    ?? store.packedShmSize.map {
                        ByteCount.text($0)
                            + """
                             in the \(store.packedIn?.kind == .backup ? "backup" : "archive"), beside the store \
                            (not needed to read it)
                            """
                    } ?? "none"
            ),
            (
                "History size",
                """
                \(ByteCount.text(space.historyBytes)), \(String(format: "%.1f", share * 100))% of the database \
                (\(space.method == .dbstat ? "measured with dbstat" : "estimated"))
                """
            ),
            ("Free pages", "\(space.freelistCount) (\(ByteCount.text(space.freelistCount * space.pageSize)))"),
            (
                "Transactions",
                "\(stats.transactionCount)"
                    + (stats.transactionNumbers.map { " (#\($0.lowerBound)…#\($0.upperBound))" } ?? "")
            ),
            (
                "Changes",
                "\(stats.changeCount)"
                    + (stats.insertCount.map { inserts in
                        let other =
                            (stats.otherTypeCount ?? 0) > 0 ? ", \(stats.otherTypeCount ?? 0) of no known type" : ""
                        return
                            """
                             (\(inserts) inserts, \(stats.updateCount ?? 0) updates, \(stats.deleteCount ?? 0) \
                            deletes\(other))
                            """
                    } ?? " (by type: add --change-types)")
            ),
            ("Strings", String(stats.stringCount)),
            ("First", time.display(stats.timestamps?.lowerBound)),
            ("Last", time.display(stats.timestamps?.upperBound)),
            ("Purge traces", traceText.isEmpty ? "none" : traceText.joined(separator: "; ")),
        ]
        if stats.orphanChangeCount > 0 {
            fields.append(("Orphan changes", "\(stats.orphanChangeCount) (no transaction)"))
        }
        if stats.unreadableTimestampCount > 0 {
            let n = stats.unreadableTimestampCount
            fields.append(
                (
                    "Odd timestamps",
                    """
                    \(n) transaction\(n == 1 ? " has" : "s have") a ZTIMESTAMP that is text or a blob, not a \
                    number (left out of First and Last)
                    """
                ))
        }
        if let problem = store.metadata.plistProblem { fields.append(("Metadata", problem)) }
        var sections: [Document.Section] = [.fields(title: nil, fields)]
        for notice in store.notices {
            sections.append(.note("\(notice.isWarning ? "warning" : "note"): \(notice.message.text)"))
        }

        let json: [(String, JSONValue)] = [
            ("store", .string(store.path)),
            ("storeID", .string(store.storeUUID)),
            ("storeType", .optional(store.metadata.storeType)),
            ("frameworkVersion", .optional(store.metadata.frameworkVersion)),
            ("modelVersionIdentifiers", .array(store.metadata.modelVersionIdentifiers.map { .string($0) })),
            (
                "model",
                .object([
                    ("source", .optional(model.source?.description)),
                    ("entityCount", .optional(model.model?.entities.count)),
                    ("problem", .optional(model.problem?.text)),
                ])
            ),
            ("entityCount", .int(Int64(store.catalog.entities.count))),
            (
                "files",
                .object([
                    ("main", .int(files.mainSize)), ("wal", .optional(walBytes)), ("shm", .optional(files.shmSize)),
                    ("packedShm", .optional(store.packedShmSize)),
                    ("total", .int(fileBytes)),
                ])
            ),
            (
                "space",
                .object([
                    ("method", .string(space.method.rawValue)),
                    ("pageSize", .int(space.pageSize)), ("pageCount", .int(space.pageCount)),
                    ("freelistCount", .int(space.freelistCount)),
                    ("historyBytes", .int(space.historyBytes)),
                    ("historyShare", .double(share)),
                    (
                        "tables",
                        .array(
                            space.tables.map {
                                .object([
                                    ("name", .string($0.name)), ("pages", .int($0.pages)), ("bytes", .int($0.bytes)),
                                ])
                            })
                    ),
                ])
            ),
            ("transactionCount", .int(Int64(stats.transactionCount))),
            ("changeCount", .int(Int64(stats.changeCount))),
            ("insertCount", .optional(stats.insertCount)),
            ("updateCount", .optional(stats.updateCount)),
            ("deleteCount", .optional(stats.deleteCount)),
            ("otherTypeCount", .optional(stats.otherTypeCount)),
            ("orphanChangeCount", .int(Int64(stats.orphanChangeCount))),
            ("unreadableTimestampCount", .int(Int64(stats.unreadableTimestampCount))),
            ("stringCount", .int(Int64(stats.stringCount))),
            ("firstTransactionNumber", .optional(stats.transactionNumbers?.lowerBound)),
            ("lastTransactionNumber", .optional(stats.transactionNumbers?.upperBound)),
            ("firstTimestamp", .optional(time.iso(stats.timestamps?.lowerBound))),
            ("lastTimestamp", .optional(time.iso(stats.timestamps?.upperBound))),
            ("firstCocoaTimestamp", .optional(stats.timestamps?.lowerBound)),
            ("lastCocoaTimestamp", .optional(stats.timestamps?.upperBound)),
            (
                "purgeTraces",
                .object([
                    ("startsAfterFirst", .bool(traces.startsAfterFirst)),
                    ("transactionHighWaterMark", .optional(traces.transactionHighWaterMark)),
                    ("highWaterMarkAboveLast", .bool(traces.highWaterMarkAboveLast)),
                    ("transactionGaps", .int(traces.transactionGaps)),
                    ("migrationAtCut", .optional(traces.migrationAtCut)),
                ])
            ),
            ("notices", .array(store.notices.map { .string($0.message.text) })),
        ]
        return Document(kind: "info", json: json, sections: sections)
    }
}
