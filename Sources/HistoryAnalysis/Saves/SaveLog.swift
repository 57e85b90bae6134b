import Foundation
import HistoryReading

/// The saves a store's `-wal` still holds: each commit since the log was last reset, with what it
/// changed, read from the pages themselves (the b-tree pages each commit wrote, before and after
/// it), one commit at a time, so that memory does not grow with the log.
public struct SaveLog: Sendable {
    public let store: String
    public let log: WALLog
    public let exactness: SaveExactness
    /// Frames after the last commit: a save that never finished (SQLite ignores them). Valid
    /// frames, and the rest of the save in progress that SQLite had not checksummed yet.
    public var unfinished: LooseFrames? {
        let lastCommitted = log.commits.last?.lastFrame ?? 0
        let valid = log.unfinished.map { Set(log.frames[($0.lowerBound - 1)..<$0.upperBound].map(\.page)) } ?? []
        // Valid frames before a damaged one may be a save whose commit lies past it: the damage says so.
        guard log.hidden == nil, log.unfinished != nil || log.inProgress != nil else { return nil }
        return LooseFrames(
            firstFrame: lastCommitted + 1,
            lastFrame: max(log.unfinished?.upperBound ?? 0, log.inProgress?.lastFrame ?? 0),
            pages: log.inProgress?.pages ?? valid.count, commits: 0, salts: nil)
    }

    /// Frames of earlier generations of the log, left behind when it was reset.
    public var olderGenerations: [LooseFrames] {
        log.olderGenerations.map {
            LooseFrames(
                firstFrame: $0.firstFrame, lastFrame: $0.lastFrame, pages: $0.pages, commits: $0.commits,
                salts: ($0.salt1, $0.salt2))
        }
    }

    private let mainPath: String
    /// Names entities by their number (`Z_ENT`) in the rows of each save.
    private let catalog: EntityCatalog

    /// The saves of `store`'s `-wal`; an error names the store when it has none to read.
    public static func read(_ store: HistoryStore) throws -> SaveLog {
        let files = store.files
        guard store.usesWAL else {
            throw WALError.noSaves(
                path: store.path,
                reason: "it is not in WAL mode (it keeps a rollback journal), so it has no saves to list")
        }
        guard let pageSize = Self.pageSize(files.location) else {
            throw WALError.noSaves(path: store.path, reason: "its main file has no readable header")
        }
        let log =
            files.walSize == nil
            ? WALLog.missing(files.walPath, pageSize: pageSize) : try WALLog.read(files.walPath, pageSize: pageSize)
        return SaveLog(
            store: store.path, log: log,
            exactness: SaveExactness.of(log, mainPath: files.location, shmPath: files.shmPath),
            mainPath: files.location, catalog: store.catalog)
    }

    /// The page size in the main file's header (nil when it cannot be read).
    static func pageSize(_ path: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: path), let head = try? handle.read(upToCount: 100),
            head.count == 100
        else { return nil }
        try? handle.close()
        let b = [UInt8](head)
        let raw = Int(b[16]) << 8 | Int(b[17])
        return raw == 1 ? 65536 : raw
    }

    /// Calls `body` with each save in order.
    public func forEachSave(_ body: (SaveSummary) throws -> Void) throws {
        guard !log.commits.isEmpty else { return }
        let reader = try PageReader(mainPath: mainPath, log: log)
        var owners = PageOwners(reader)
        for commit in log.commits {
            // Which table each page it writes belonged to, and the rows those pages held, before it.
            var pages: [UInt32] = []
            var seen = Set<UInt32>()
            for frame in commit.firstFrame...commit.lastFrame where seen.insert(log.frames[frame - 1].page).inserted {
                pages.append(log.frames[frame - 1].page)
            }
            var ownersBefore: [UInt32: PageOwners.Table] = [:]
            for page in pages { ownersBefore[page] = owners.table(of: page) }
            // The children of the interior pages it rewrites, with their tables: a subtree that leaves its
            // tree without being written (a DELETE freeing whole pages) shows only as a child gone.
            var childrenBefore: [UInt32: PageOwners.Table] = [:]
            for page in pages {
                guard let table = ownersBefore[page] else { continue }
                for child in Self.children(of: page, reader: reader) { childrenBefore[child] = table }
            }
            var before = Self.rows(on: pages, owners: { ownersBefore[$0] }, reader: reader)
            reader.apply(commit)
            owners.update(written: seen, ownersBefore: ownersBefore, reader: reader)
            var childrenAfter = Set<UInt32>()
            for page in pages { childrenAfter.formUnion(Self.children(of: page, reader: reader)) }
            // Pages it did not write read the same after it: the leaves below each subtree that left.
            var gone: [UInt32: PageOwners.Table] = [:]
            for (child, table) in childrenBefore where !childrenAfter.contains(child) && !seen.contains(child) {
                for leaf in Self.leaves(below: child, reader: reader) where !seen.contains(leaf) { gone[leaf] = table }
            }
            for (table, rows) in Self.rows(on: Array(gone.keys), owners: { gone[$0] }, reader: reader) {
                before[table, default: [:]].merge(rows) { current, _ in current }
            }
            let after = Self.rows(on: pages, owners: { owners.table(of: $0) }, reader: reader)
            try body(summary(commit, before: before, after: after))
        }
    }

    /// The children of page `n` when it is an interior page, at `reader`'s state.
    private static func children(of n: UInt32, reader: PageReader) -> [UInt32] {
        guard let bytes = reader.page(n), let node = BTreePage(bytes, number: n, usableSize: reader.usableSize) else {
            return []
        }
        return node.children
    }

    /// The leaf pages of the subtree rooted at `n` (n itself when a leaf), at `reader`'s state.
    private static func leaves(below n: UInt32, reader: PageReader) -> [UInt32] {
        var found: [UInt32] = []
        var queue = [n]
        var visited = Set<UInt32>()
        while let page = queue.popLast() {
            guard visited.insert(page).inserted, visited.count < 1_000_000, let bytes = reader.page(page),
                let node = BTreePage(bytes, number: page, usableSize: reader.usableSize)
            else { continue }
            if node.isInterior { queue += node.children } else { found.append(page) }
        }
        return found
    }

    /// The rows of the table leaves among `pages`, by table name and rowid, with their records.
    private static func rows(
        on pages: [UInt32], owners: (UInt32) -> PageOwners.Table?,
        reader: PageReader
    ) -> [String: [Int64: [UInt8]]] {
        var rows: [String: [Int64: [UInt8]]] = [:]
        var claimed = Set<UInt32>()
        for page in pages {
            guard let table = owners(page), let bytes = reader.page(page),
                let node = BTreePage(bytes, number: page, usableSize: reader.usableSize), node.kind == .tableLeaf
            else { continue }
            for row in node.rows {
                rows[table.name, default: [:]][row.rowid] =
                    RowRecord.payload(row, on: node, reader: reader, claimed: &claimed) ?? []
            }
        }
        return rows
    }

    private func summary(_ commit: WALLog.Commit, before: [String: [Int64: [UInt8]]], after: [String: [Int64: [UInt8]]])
        -> SaveSummary
    {
        var entities: [String: SaveSummary.RowCounts] = [:]
        var others: [String: SaveSummary.RowCounts] = [:]
        var added: [Int64] = []
        var removed: [Int64] = []
        var changesAdded = 0
        var changesRemoved = 0
        var deletedObjects: [ObjectReference] = []
        for table in Set(before.keys).union(after.keys).sorted() {
            let old = before[table] ?? [:]
            let new = after[table] ?? [:]
            let inserted = new.keys.filter { old[$0] == nil }
            let deleted = old.keys.filter { new[$0] == nil }
            let updated = new.keys.filter { key in old[key].map { $0 != new[key] } ?? false }
            switch table {
            case "ATRANSACTION":
                added = inserted.sorted()
                removed = deleted.sorted()
            case "ACHANGE":
                changesAdded = inserted.count
                changesRemoved = deleted.count
            case "ATRANSACTIONSTRING":
                count(&others, table, inserted.count, updated.count, deleted.count)
            default:
                guard Self.isEntityTable(table) else {
                    count(&others, table, inserted.count, updated.count, deleted.count)
                    continue
                }
                // Rows of an entity table name their entity in Z_ENT, the record's second column.
                func entity(_ record: [UInt8]?) -> String {
                    let columns = record.map(RowRecord.columns) ?? []
                    guard columns.count > 1, case .integer(let number)? = columns[1] else { return table }
                    return catalog.entity(number: number)?.name ?? "\(table) (Z_ENT \(number))"
                }
                for key in inserted { count(&entities, entity(new[key]), 1, 0, 0) }
                for key in updated { count(&entities, entity(new[key]), 0, 1, 0) }
                for key in deleted.sorted() {
                    count(&entities, entity(old[key]), 0, 0, 1)
                    deletedObjects.append(ObjectReference(entityName: entity(old[key]), primaryKey: key))
                }
            }
        }
        let why = reason(ofSave: commit.number)
        let read = SaveSummary.Changes(
            transactionsAdded: added, transactionsRemoved: removed, changesAdded: changesAdded,
            changesRemoved: changesRemoved,
            entities: entities.values.filter { $0.total > 0 }.sorted { $0.name < $1.name },
            otherTables: others.values.filter { $0.total > 0 }.sorted { $0.name < $1.name },
            deletedObjects: deletedObjects)
        return SaveSummary(commit: commit, exact: why == nil, why: why, read: read)
    }

    private func count(
        _ counts: inout [String: SaveSummary.RowCounts], _ name: String, _ inserted: Int, _ updated: Int, _ deleted: Int
    ) {
        counts[name, default: SaveSummary.RowCounts(name: name)].inserted += inserted
        counts[name, default: SaveSummary.RowCounts(name: name)].updated += updated
        counts[name, default: SaveSummary.RowCounts(name: name)].deleted += deleted
    }

    /// Why save `number` cannot be rebuilt exactly (nil when it can): a save is rebuilt from the
    /// states before and after it, so both must be exact; the reason says which is not.
    public func reason(ofSave number: Int) -> String? {
        let after = exactness.reason(ofState: number)
        let before = exactness.reason(ofState: number - 1)
        if let after {
            return "the store after it is partial" + (before == nil ? "" : ", as is the one before it") + ": " + after
        }
        return before.map { "the store before it is partial: " + $0 }
    }

    /// Core Data's tables of objects: `Z` and a letter (`ZTASK`), not its bookkeeping (`Z_PRIMARYKEY`,
    /// `Z_4PROJECTS`, …).
    static func isEntityTable(_ name: String) -> Bool {
        name.count > 1 && name.hasPrefix("Z") && name.dropFirst().first.map { $0.isLetter } == true
    }
}
