import Foundation
import GRDBSQLite

/// A small deterministic generator (SplitMix64) seeded by libFuzzer.
public struct Rng {
    private var state: UInt64
    public init(_ seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// 0..<n (0 when n is 0).
    public mutating func below(_ n: Int) -> Int { n > 0 ? Int(next() % UInt64(n)) : 0 }
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Mutations of whole stores for the store target, besides libFuzzer's byte
/// mutations: page-sized ones (swap, zero, copy, truncate at a page boundary,
/// damage a b-tree page header, cut or damage the WAL) and value-level ones
/// made through SQLite on a scratch copy (a value of the wrong type in any
/// cell, deleted rows, dropped tables, indexes and columns, a damaged blob,
/// the journal mode switched, changes left in a WAL).
public enum StoreMutator {
    public static func mutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
        var rng = Rng(UInt64(seed) | UInt64(size) << 32)
        let choice = rng.below(10)
        let input = StoreInput(Array(UnsafeBufferPointer(start: data, count: size)))
        var output: [UInt8]?
        switch choice {
        case 0..<3: output = nil
        case 3..<6: output = pageMutation(input, &rng)
        default: output = sqlMutation(input, &rng)
        }
        guard let output, !output.isEmpty, output.count <= maxSize else {
            return LLVMFuzzerMutate(data, size, maxSize)
        }
        output.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: $0.count) }
        return output.count
    }

    // MARK: Pages

    static func pageMutation(_ input: StoreInput, _ rng: inout Rng) -> [UInt8]? {
        var main = input.main
        var wal = input.wal
        let pageSize = StoreInput.pageSize(main)
        let pages = main.count / pageSize
        guard pages > 0 else { return nil }
        switch rng.below(wal == nil ? 6 : 8) {
        case 0 where pages > 1:  // swap two pages
            let a = rng.below(pages)
            let b = rng.below(pages)
            for i in 0..<pageSize { main.swapAt(a * pageSize + i, b * pageSize + i) }
        case 1:  // zero a page
            let a = rng.below(pages)
            for i in 0..<pageSize { main[a * pageSize + i] = 0 }
        case 2 where pages > 1:  // one page over another
            let a = rng.below(pages)
            let b = rng.below(pages)
            let page = Array(main[(a * pageSize)..<((a + 1) * pageSize)])
            main.replaceSubrange((b * pageSize)..<((b + 1) * pageSize), with: page)
        case 3:  // truncate at a page boundary (the WAL goes with the tail)
            main = Array(main.prefix(rng.below(pages) * pageSize))
            wal = nil
        case 4:  // damage a b-tree page header: the first bytes of a page (after the file header on page 1)
            let a = rng.below(pages)
            let start = a * pageSize + (a == 0 ? 100 : 0)
            for _ in 0..<(1 + rng.below(3)) {
                main[start + rng.below(12)] = rng.pick([
                    0x00, 0xFF, 0x0D, 0x05, 0x0A, 0x02, UInt8(truncatingIfNeeded: rng.next()),
                ])
            }
        case 5:  // the header's page count, size or freelist fields
            guard main.count >= 100 else { return nil }
            let field = rng.pick([16, 17, 28, 29, 30, 31, 32, 35, 36, 39, 18, 19, 56, 57])
            main[field] = rng.pick([0x00, 0xFF, 0x01, 0x02, UInt8(truncatingIfNeeded: rng.next())])
        case 6:  // cut the WAL at a frame boundary
            guard let w = wal else { return nil }
            let frames = max(0, (w.count - 32) / (24 + pageSize))
            wal = Array(w.prefix(32 + rng.below(frames + 1) * (24 + pageSize)))
        case 7:  // damage a WAL frame header or its page
            guard var w = wal, w.count > 32 else { return nil }
            w[32 + rng.below(w.count - 32)] ^= UInt8(1 + rng.below(255))
            wal = w
        default:
            return nil
        }
        return StoreInput(main: main, wal: wal).bytes
    }

    // MARK: Values through SQLite

    static let literals = [
        "'yesterday'", "''", "'NaN'", "'2025-03-03'", "'9223372036854775808'", "'1e999'", "' 12 '",
        "X''", "X'00'", "X'FF'", "X'DEADBEEF0001'", "NULL",
        "0", "-1", "1", "2", "3", "7", "255", "16000", "16001", "2147483648",
        "9223372036854775807", "-9223372036854775808", "1e308", "-1e308", "9.3e18", "-9.3e18", "0.5", "1e-300", "-0.0",
    ]

    static func value(_ rng: inout Rng) -> String {
        switch rng.below(10) {
        case 0: return String(Int64(bitPattern: rng.next()))
        case 1: return "X'" + (0..<rng.below(40)).map { _ in String(format: "%02X", rng.below(256)) }.joined() + "'"
        case 2:
            return "'" + String(repeating: rng.pick(["x", "é", "\u{1F600}", "%", "'' "]), count: 1 + rng.below(300))
                + "'"
        default: return rng.pick(literals)
        }
    }

    static func sqlMutation(_ input: StoreInput, _ rng: inout Rng) -> [UInt8]? {
        let dir = Scratch.directory.appendingPathComponent("mutate")
        try? FileManager.default.removeItem(at: dir)
        guard (try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)) != nil,
            let path = try? input.write(to: dir, withShm: false)
        else { return nil }
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            sqlite3_close(db)
            return nil
        }
        var closed = false
        defer { if !closed { sqlite3_close(db) } }
        let tables = strings(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        guard !tables.isEmpty else { return nil }
        // History tables and Core Data's own most of the time, any table otherwise.
        let preferred = ["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING", "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
            .filter(tables.contains)
        let table = !preferred.isEmpty && rng.below(4) != 0 ? rng.pick(preferred) : rng.pick(tables)
        let columns = strings(db, "SELECT name FROM pragma_table_info('\(table)')")
        guard !columns.isEmpty else { return nil }
        let column = rng.pick(columns)
        let rows = Int(integer(db, "SELECT COUNT(*) FROM \"\(table)\"") ?? 0)
        let oneRow = "rowid IN (SELECT rowid FROM \"\(table)\" LIMIT 1 OFFSET \(rng.below(rows)))"
        var statements: [String] = []
        switch rng.below(20) {
        case 0..<10:
            statements = ["UPDATE \"\(table)\" SET \"\(column)\" = \(value(&rng)) WHERE \(oneRow)"]
        case 10:
            statements = ["UPDATE \"\(table)\" SET \"\(column)\" = \(value(&rng))"]
        case 11:
            statements = ["DELETE FROM \"\(table)\" WHERE \(oneRow)"]
        case 12:
            statements = ["DELETE FROM \"\(table)\""]
        case 13:
            statements = ["DROP TABLE \"\(table)\""]
        case 14:
            let indexes = strings(
                db, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '\(table)' AND sql IS NOT NULL")
            guard !indexes.isEmpty else { return nil }
            statements = ["DROP INDEX \"\(rng.pick(indexes))\""]
        case 15:
            // Drop the column (its indexes first), rename it, or add a tombstone column.
            let indexes = strings(
                db,
                "SELECT DISTINCT il.name FROM sqlite_master m, pragma_index_list(m.name) il, pragma_index_info(il.name) ii "
                    + "WHERE m.name = '\(table)' AND ii.name = '\(column)' AND il.origin = 'c'")
            statements = rng.pick([
                indexes.map { "DROP INDEX \"\($0)\"" } + ["ALTER TABLE \"\(table)\" DROP COLUMN \"\(column)\""],
                ["ALTER TABLE \"\(table)\" RENAME COLUMN \"\(column)\" TO \"\(column)_OLD\""],
                [
                    "ALTER TABLE \"\(table)\" ADD COLUMN ZTOMBSTONE\(rng.pick(["9", "12", "X", "-1", "99999999999999999999"])) \(rng.pick(["BLOB", "INTEGER", "VARCHAR", ""]))"
                ],
            ])
        case 16, 17:
            return blobMutation(db, path: path, table: table, column: column, rows: rows, &rng, closed: &closed)
        case 18:
            statements = [rng.pick(["PRAGMA journal_mode = DELETE", "PRAGMA journal_mode = WAL"])]
        default:
            // Copy one row's value into another row's column of a different type.
            let other = rng.pick(columns)
            statements = [
                "UPDATE \"\(table)\" SET \"\(column)\" = (SELECT \"\(other)\" FROM \"\(table)\" LIMIT 1 OFFSET \(rng.below(rows))) WHERE \(oneRow)"
            ]
        }
        let keepWAL = rng.below(3) == 0
        if keepWAL && statements.first?.hasPrefix("PRAGMA") == false {
            _ = exec(db, "PRAGMA journal_mode = WAL")
        }
        for sql in statements { guard exec(db, sql) else { return nil } }
        return files(path: path, db: db, keepWAL: keepWAL, closed: &closed)
    }

    /// Runs libFuzzer's byte mutations on one blob or text cell.
    private static func blobMutation(
        _ db: OpaquePointer, path: String, table: String, column: String, rows: Int,
        _ rng: inout Rng, closed: inout Bool
    ) -> [UInt8]? {
        let offset = rng.below(rows)
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(
                db, "SELECT rowid, \"\(column)\" FROM \"\(table)\" LIMIT 1 OFFSET \(offset)", -1, &statement, nil)
                == SQLITE_OK
        else {
            sqlite3_finalize(statement)
            return nil
        }
        guard sqlite3_step(statement) == SQLITE_ROW else {
            sqlite3_finalize(statement)
            return nil
        }
        let rowid = sqlite3_column_int64(statement, 0)
        let isText = sqlite3_column_type(statement, 1) == SQLITE_TEXT
        let count = Int(sqlite3_column_bytes(statement, 1))
        var bytes = [UInt8](repeating: 0, count: count + 64)
        if count > 0, let p = sqlite3_column_blob(statement, 1) {
            bytes.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: p, count: count)) }
        }
        sqlite3_finalize(statement)
        let newCount = bytes.withUnsafeMutableBufferPointer { LLVMFuzzerMutate($0.baseAddress!, count, count + 64) }
        var update: OpaquePointer?
        guard
            sqlite3_prepare_v2(db, "UPDATE \"\(table)\" SET \"\(column)\" = ? WHERE rowid = ?", -1, &update, nil)
                == SQLITE_OK
        else {
            sqlite3_finalize(update)
            return nil
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        bytes.withUnsafeBytes { raw in
            if isText {
                _ = sqlite3_bind_text(
                    update, 1, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(newCount), transient)
            } else {
                _ = sqlite3_bind_blob(update, 1, raw.baseAddress, Int32(newCount), transient)
            }
        }
        sqlite3_bind_int64(update, 2, rowid)
        let done = sqlite3_step(update) == SQLITE_DONE
        sqlite3_finalize(update)
        guard done else { return nil }
        return files(path: path, db: db, keepWAL: false, closed: &closed)
    }

    /// The store's bytes after the change: with `keepWAL` (and a WAL-mode store)
    /// read while the connection is open, so the changes stay in the WAL;
    /// otherwise after closing, which checkpoints.
    private static func files(path: String, db: OpaquePointer, keepWAL: Bool, closed: inout Bool) -> [UInt8]? {
        if !keepWAL {
            sqlite3_close(db)
            closed = true
        }
        guard let main = FileManager.default.contents(atPath: path) else { return nil }
        let wal = FileManager.default.contents(atPath: path + "-wal").flatMap { $0.isEmpty ? nil : [UInt8]($0) }
        return StoreInput(main: [UInt8](main), wal: wal).bytes
    }

    private static func exec(_ db: OpaquePointer, _ sql: String) -> Bool {
        sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK
    }

    private static func strings(_ db: OpaquePointer, _ sql: String) -> [String] {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return [] }
        var out: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            if let text = sqlite3_column_text(statement, 0) { out.append(String(cString: text)) }
        }
        return out
    }

    private static func integer(_ db: OpaquePointer, _ sql: String) -> Int64? {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW
        else { return nil }
        return sqlite3_column_int64(statement, 0)
    }
}
