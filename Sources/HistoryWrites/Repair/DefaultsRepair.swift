import Foundation
import HistoryAnalysis
import HistoryReading

/// Where to move an actor's merge position.
public enum RepairTarget: Equatable, Sendable {
    /// A date (Cocoa seconds); for an actor that keeps dates.
    case date(Double)
    /// A transaction: its token, or its timestamp for a date.
    case transaction(Int64)
    /// The transaction a token names in the store (a token of another store is refused).
    case token(HistoryToken)
    /// Just before the oldest surviving transaction (a date), or that transaction (a token):
    /// the actor merges everything that survives.
    case oldest
    /// The newest transaction: the actor is up to date.
    case latest
    /// Remove the actor's key(s).
    case remove
}

/// One key changed by a defaults repair.
public struct DefaultsChange: Equatable, Sendable {
    public var key: String
    /// nil when the key is created.
    public var old: PlistValue?
    /// nil when the key is removed.
    public var new: PlistValue?
}

/// A defaults repair, computed but not written.
public struct DefaultsRepairPlan: Equatable, Sendable {
    public var path: String
    public var format: PropertyList.Format
    public var original: [String: PlistValue]
    public var updated: [String: PlistValue]
    public var changes: [DefaultsChange]
    /// Transactions by others after the actor's position up to its new one, which the move
    /// makes it skip: it will never merge them (0 when it moves back, or nothing is known).
    public var skipped: Int = 0
    /// The actor whose position moves.
    public var actor: String = ""
    /// The plist's bytes as the plan read them: writing refuses a plist that changed since.
    package var bytesRead: Data
}

/// Rewrites an actor's merge position in shared defaults, keeping the
/// plist's format and every other key and value.
public enum DefaultsRepair {
    /// Plans moving `actor` to `target`. `store` resolves transactions (needed
    /// for every target but `.date` and `.remove`); `keyFormat` names the key
    /// to create when the actor has none.
    public static func plan(
        path: String, actor: String, target: RepairTarget, store: HistoryStore?,
        keyFormat: MergeKeyFormat? = nil, customPrefixes: [String] = []
    ) throws -> DefaultsRepairPlan {
        // The bytes parsed are the bytes the write compares the file with.
        guard let bytesRead = FileContents.read(path) else { throw MergeStateError.unreadable(path: path) }
        let (original, format) = try DefaultsReader.dictionary([UInt8](bytesRead), path: path)
        let storeUUID = store?.storeUUID
        var keys = actorKeys(original, actor: actor, storeUUID: storeUUID, customPrefixes: customPrefixes, path: path)
        var updated = original
        var changes: [DefaultsChange] = []
        if keys.isEmpty {
            guard target != .remove else {
                throw RepairError.invalidRepair(path: path, reason: "no key of actor '\(actor)' to remove")
            }
            let format = try keyFormat ?? inferFormat(original, path: path, customPrefixes: customPrefixes)
            keys = [try keyName(format, actor: actor, storeUUID: storeUUID, path: path)]
        }
        for key in keys {
            let old = original[key]
            let new = try newValue(old: old, target: target, store: store, path: path, actor: actor)
            updated[key] = new
            changes.append(DefaultsChange(key: key, old: old, new: new))
        }
        // Refuse now, not after the backup, what the plist's format cannot hold
        // (a store's timestamp far outside an XML plist's years).
        _ = try encode(updated, format: format, path: path)
        var plan = DefaultsRepairPlan(
            path: path, format: format, original: original, updated: updated, changes: changes, bytesRead: bytesRead)
        plan.actor = actor
        if let store, let change = changes.first, let old = change.old, let new = change.new {
            plan.skipped = try skipped(
                actor: actor, from: DefaultsReader.position(old, format: format, source: path),
                to: DefaultsReader.position(new, format: format, source: path), store: store)
        }
        return plan
    }

    /// Plans replacing the value of each of `actor`'s existing keys by what `rewrite` makes of it
    /// (the key and its value): a position put in a state the app must survive. Every other key
    /// and the plist's format are kept.
    public static func plan(
        path: String, actor: String, store: HistoryStore, customPrefixes: [String] = [],
        rewriting rewrite: (String, PlistValue) throws -> PlistValue
    ) throws -> DefaultsRepairPlan {
        guard let bytesRead = FileContents.read(path) else { throw MergeStateError.unreadable(path: path) }
        let (original, format) = try DefaultsReader.dictionary([UInt8](bytesRead), path: path)
        let keys = actorKeys(
            original, actor: actor, storeUUID: store.storeUUID, customPrefixes: customPrefixes, path: path)
        guard !keys.isEmpty else {
            throw RepairError.invalidRepair(path: path, reason: "no key of actor '\(actor)' at the top of the plist")
        }
        var updated = original
        var changes: [DefaultsChange] = []
        for key in keys {
            guard let old = original[key] else { continue }
            let new = try rewrite(key, old)
            updated[key] = new
            changes.append(DefaultsChange(key: key, old: old, new: new))
        }
        _ = try encode(updated, format: format, path: path)
        var plan = DefaultsRepairPlan(
            path: path, format: format, original: original, updated: updated, changes: changes, bytesRead: bytesRead)
        plan.actor = actor
        return plan
    }

    /// The plan's plist as it would be written.
    public static func encoded(_ plan: DefaultsRepairPlan) throws -> [UInt8] {
        try encode(plan.updated, format: plan.format, path: plan.path)
    }

    /// The top-level keys holding `actor`'s position for the store `storeUUID` (any store's when nil).
    private static func actorKeys(
        _ original: [String: PlistValue], actor: String, storeUUID: String?, customPrefixes: [String],
        path: String
    ) -> [String] {
        original.keys.sorted().filter { key in
            if let parsed = MergeKeyFormat.parse(key, customPrefixes: customPrefixes), parsed.actor == actor {
                return parsed.storeUUID.map { u in
                    storeUUID.map { $0.caseInsensitiveCompare(u) == .orderedSame } ?? true
                } ?? true
            }
            guard key == actor, let value = original[key] else { return false }
            return value.dataValue.map(HistoryTokenDecoder.isTokenArchive) == true
                || DefaultsReader.jsonBytes(value).map { (try? JSONTokenDecoder.decode(json: $0, source: path)) != nil }
                    == true
        }
    }

    /// The transactions by others after `from` through `to`, which a move between them skips.
    private static func skipped(actor: String, from: MergePosition, to: MergePosition, store: HistoryStore) throws
        -> Int
    {
        func bounds(_ p: MergePosition) -> (after: HistoryQuery.Bound, through: HistoryQuery.Bound)? {
            switch p {
            case .date(let d, _): return (.date(d), .date(d.nextUp))
            case .token(let token):
                guard let n = token.transactionNumber(forStore: store.storeUUID), n < .max else { return nil }
                return (.transaction(n), .transaction(n + 1))
            case .unreadable: return nil
            }
        }
        guard let old = bounds(from), let new = bounds(to) else { return 0 }
        let all = try store.countTransactions(HistoryQuery(after: old.after, before: new.through))
        let own = try store.countTransactions(
            HistoryQuery(after: old.after, before: new.through, authors: [.value(actor)]))
        return max(0, all - own)
    }

    /// Writes `plan` atomically (temporary file, then rename) in the plist's
    /// own format, after copying the original to `backupPath` (default:
    /// beside it with a timestamp). Returns the backup's path. Refuses a plan that makes the
    /// actor skip transactions it has not merged unless `allowSkipping`, and a plist
    /// that changed since the plan read it; when a write fails, the plist is
    /// unchanged and neither the backup nor a temporary file is left. The write stops at a safe
    /// point when `stops` (the caller's) ask; without them, nothing stops it.
    @discardableResult
    public static func write(
        _ plan: DefaultsRepairPlan, backupPath: String? = nil, allowSkipping: Bool = false,
        stops: StopRequests? = nil
    ) throws -> String {
        guard plan.skipped == 0 || allowSkipping else {
            throw RepairError.wouldSkipTransactions(path: plan.path, actor: plan.actor, count: plan.skipped)
        }
        let fm = FileManager.default
        // Through a link, the file it names is rewritten and the link kept.
        let target = FileStatus.resolvedPath(plan.path)
        let dir = URL(fileURLWithPath: target).deletingLastPathComponent().path
        let status = FileStatus(target)
        let mode = status.map { Int($0.permissions) } ?? 0o644
        let dirMode = FileStatus(dir).map { Int($0.permissions) } ?? 0
        guard mode & 0o222 != 0, dirMode & 0o222 != 0 else {
            throw RepairError.readOnly(
                path: plan.path, reason: mode & 0o222 == 0 ? "the plist is read-only" : "its folder is read-only")
        }
        let chosen = backupPath ?? BackupName.beside(plan.path)
        guard !fm.fileExists(atPath: chosen), !FileStatus.sameFile(chosen, target) else {
            throw RepairError.backupFailed(path: plan.path, reason: "\(chosen) already exists")
        }
        // Another process (the app, cfprefsd) may have written the plist since it was read.
        guard let current = FileContents.read(plan.path), current == plan.bytesRead else {
            throw RepairError.changedSinceRead(path: plan.path)
        }
        let bytes = try encode(plan.updated, format: plan.format, path: plan.path)
        // From here Ctrl-C, SIGTERM and SIGHUP stop the write at the next step: unchanged, or finished.
        let stop = WriteInterruption(stops: stops)
        defer { stop.cancel() }
        // The backup is the bytes read, written under a name of this process's and given its name
        // when complete: never over another's backup (a repair of the same second takes the next name).
        let backupTemporary = "\(chosen).cdhist-\(getpid()).partial"
        let backup: String
        do {
            try? fm.removeItem(atPath: backupTemporary)
            try FileWriter.create(backupTemporary, contents: current, like: status)
            backup = try BackupName.place(backupTemporary, at: chosen, nextFree: backupPath == nil)
        } catch {
            try? fm.removeItem(atPath: backupTemporary)
            let why =
                (error as? POSIXError)?.code == .EEXIST
                ? "\(chosen) already exists" : "writing \(chosen): \(WriteFault.cause(error))"
            throw RepairError.backupFailed(path: plan.path, reason: why)
        }
        do {
            try FileReplacement.replace(
                plan.path, expecting: plan.bytesRead, with: Data(bytes), stop: stop, outcome: "the plist is unchanged")
        } catch {
            // Nothing was written: the backup of an unchanged plist would only be left over.
            try? fm.removeItem(atPath: backup)
            throw error
        }
        try stop.check(path: plan.path, outcome: "the change was written; the original is backed up at \(backup)")
        return backup
    }

    private static func encode(_ dictionary: [String: PlistValue], format: PropertyList.Format, path: String) throws
        -> [UInt8]
    {
        guard format == .xml else { return PropertyList.encodeBinary(.dictionary(dictionary)) }
        do {
            return try PropertyList.encodeXML(.dictionary(dictionary))
        } catch {
            throw RepairError.invalidRepair(path: path, reason: "\(error)")
        }
    }

    private static func newValue(
        old: PlistValue?, target: RepairTarget, store: HistoryStore?, path: String, actor: String
    ) throws -> PlistValue? {
        if target == .remove { return nil }
        let json = old.flatMap(DefaultsReader.jsonBytes)
        let keepsToken = old?.dataValue != nil || json != nil
        func requireStore() throws -> HistoryStore {
            guard let store else {
                throw RepairError.invalidRepair(path: path, reason: "this repair needs the store (\(Control.store))")
            }
            return store
        }
        func transaction(_ n: Int64) throws -> Transaction {
            let s = try requireStore()
            guard let tx = try s.transaction(number: n) else {
                throw RepairError.invalidRepair(path: path, reason: "transaction #\(n) does not exist in \(s.path)")
            }
            return tx
        }
        let tx: Transaction
        switch target {
        case .remove:
            return nil
        case .date(let d):
            guard !keepsToken else {
                throw RepairError.invalidRepair(
                    path: path,
                    reason:
                        """
                        '\(actor)' keeps a token, not a date: use \(Control.moveToTransaction), \
                        \(Control.moveToOldest) or \(Control.moveToLatest)
                        """
                )
            }
            return .date(d)
        case .transaction(let n):
            tx = try transaction(n)
        case .token(let token):
            let s = try requireStore()
            guard let n = token.transactionNumber(forStore: s.storeUUID) else {
                throw RepairError.invalidRepair(
                    path: path,
                    reason: "token \(token) is for another store, not \(s.storeUUID) (Core Data error 134501)")
            }
            tx = try transaction(n)
        case .oldest:
            guard let first = try requireStore().firstTransaction() else {
                throw RepairError.invalidRepair(path: path, reason: "the store has no transactions")
            }
            tx = first
            // A date just before it, so the actor merges the oldest one too.
            if !keepsToken, let t = first.timestamp { return .date(t - 0.001) }
        case .latest:
            var newest: Transaction?
            try requireStore().readTransactions(HistoryQuery(limit: 1, order: .descending), decoder: nil) {
                try $0.forEach { tx, _ in newest = tx }
            }
            guard let newest else {
                throw RepairError.invalidRepair(path: path, reason: "the store has no transactions")
            }
            tx = newest
        }
        if let json, let old {
            // Only the number the JSON gives this store changes; its layout is the app's own. A JSON value
            // that is no readable token is never replaced by another format.
            guard (try? JSONTokenDecoder.decode(json: json, source: path)) != nil,
                let rewritten = JSONTokenDecoder.rewrite(json: json, storeUUID: tx.storeUUID, to: tx.number)
            else {
                throw RepairError.invalidRepair(
                    path: path,
                    reason:
                        """
                        '\(actor)' keeps JSON that is no readable token of this store; remove it \
                        (\(Control.removePosition)) so the app starts over
                        """
                )
            }
            return old.stringValue != nil ? .string(String(decoding: rewritten, as: UTF8.self)) : .data(rewritten)
        }
        if keepsToken {
            var numbers =
                (old?.dataValue).flatMap { try? HistoryTokenDecoder.decode(archive: $0, source: path) }?
                .transactionNumbers ?? [:]
            numbers = numbers.filter { $0.key.caseInsensitiveCompare(tx.storeUUID) != .orderedSame }
            numbers[tx.storeUUID] = tx.number
            return .data(HistoryTokenDecoder.encode(HistoryToken(transactionNumbers: numbers)))
        }
        guard let t = tx.timestamp else {
            throw RepairError.invalidRepair(path: path, reason: "transaction #\(tx.number) has no timestamp")
        }
        return .date(t)
    }

    private static func inferFormat(_ dict: [String: PlistValue], path: String, customPrefixes: [String]) throws
        -> MergeKeyFormat
    {
        let formats = Set(dict.keys.compactMap { MergeKeyFormat.parse($0, customPrefixes: customPrefixes)?.format })
        guard formats.count == 1, let only = formats.first else {
            let found = formats.isEmpty ? "no known key format" : "several key formats"
            throw RepairError.invalidRepair(
                path: path, reason: "the actor has no key and the plist uses \(found): give \(Control.keyFormat)")
        }
        return only
    }

    private static func keyName(_ format: MergeKeyFormat, actor: String, storeUUID: String?, path: String) throws
        -> String
    {
        switch format {
        case .persistentHistoryTrackingKit: return "PersistentHistoryTrackingKit.lastToken.\(actor)"
        case .persistentHistoryTracker: return "PersistentHistoryTracker.lastToken.\(actor)"
        case .lastHistoryTransactionTimestamp: return "lastHistoryTransactionTimestamp-\(actor)"
        case .customPrefix(let p): return p + actor
        case .appwiseCore:
            guard let storeUUID else {
                throw RepairError.invalidRepair(
                    path: path, reason: "AppwiseCore keys name the store: give \(Control.store)")
            }
            return "persistent-history-tracking:\(storeUUID)-\(actor)"
        case .tokenKey, .jsonToken:
            throw RepairError.invalidRepair(
                path: path, reason: "a token key cannot be created; name an existing key's actor")
        }
    }
}
