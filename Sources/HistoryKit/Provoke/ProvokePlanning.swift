import Foundation
import HistoryAnalysis
import HistoryReading
import HistoryWrites

extension ProvokePlan {
    /// Plans putting `actor` of `store` (ignored for `cloudkit-reset`) into `scenario`'s failure, from the
    /// merge state `analysis` evaluated (its positions read with `keyPrefixes`). `by` is how many
    /// transactions `behind` moves the actor back. Throws ``ProvokeError/notApplicable(path:reason:)``
    /// when the scenario cannot happen to it (a date never expires; a token already expired).
    public static func make(
        _ scenario: ProvokeScenario, in store: HistoryStore, actor: String?, by: Int = 1,
        analysis: MergeStateAnalysis, keyPrefixes: [String] = []
    ) throws -> ProvokePlan {
        try ProvokePlanning(store: store).planProvocation(
            scenario, actor: actor, by: by, analysis: analysis, keyPrefixes: keyPrefixes)
    }
}

/// The reads and plans of `ProvokePlan.make(_:in:actor:by:analysis:keyPrefixes:)`, on one store.
private struct ProvokePlanning {
    let store: HistoryStore

    /// ``ProvokePlan/make(_:in:actor:by:analysis:keyPrefixes:)``.
    func planProvocation(
        _ scenario: ProvokeScenario, actor: String?, by: Int = 1, analysis: MergeStateAnalysis,
        keyPrefixes given: [String] = []
    ) throws -> ProvokePlan {
        // The keys are rewritten as they were read: with the prefix the analysis inferred, when it did.
        let keyPrefixes = given + (analysis.inferredKeyPrefix.map { [$0] } ?? [])
        if store.packedIn != nil { throw PlaceError.readOnlyPlace(name: store.path) }
        // A library caller may have asked for no analysis when nothing was given (`always: false`).
        guard let report = analysis.report else {
            throw ProvokeError.notApplicable(path: store.path, reason: "no merge state was found or analysed")
        }
        let folder = ProvokeBackup.folder(forStore: store.path)
        if FileStatus(folder) != nil { throw ProvokeError.earlierProvocation(path: store.path, folder: folder) }
        if scenario == .cloudKitReset { return try planCloudKitReset(report, analysis: analysis) }
        guard let actor else {
            throw ProvokeError.notApplicable(
                path: store.path, reason: "\(scenario.rawValue) needs the actor to act on (\(Control.provokeActor))")
        }
        guard let r = report.actors.first(where: { $0.name == actor && $0.kind == .app }), let record = r.records.first
        else {
            let known = report.actors.filter { $0.kind == .app && !$0.records.isEmpty }.map(\.name)
            let list: Message =
                known.isEmpty
                ? """
                no actor's position was found (\(Control.defaults), \(Control.token) or \(Control.groupContainer) \
                give them)
                """
                : "the actors with a position are \(known.joined(separator: ", "))"
            throw ProvokeError.notApplicable(path: store.path, reason: "no merge position of actor '\(actor)': \(list)")
        }
        let uuid = store.storeUUID
        func notApplicable(_ why: Message) -> ProvokeError {
            .notApplicable(path: store.path, reason: "'\(actor)' \(why)")
        }
        if case .unreadable = record.position, scenario != .corruptToken {
            throw notApplicable("has a position that cannot be read: \(scenario.rawValue) needs a readable one")
        }
        if case .token = record.position, r.tokenNumber == nil, scenario != .corruptToken {
            throw notApplicable(
                """
                keeps a token of another store already: \(scenario.rawValue) needs a token of this store \
                (\(store.storeUUID))
                """
            )
        }
        switch scenario {
        case .expiredToken:
            guard let n = r.tokenNumber else {
                throw notApplicable("keeps a date, which never expires: missed-changes deletes what it has not merged")
            }
            // Expired already: purged, or beyond the newest transaction (a restored store), said as check says it.
            guard r.lastMerged != nil else {
                throw ProvokeError.notApplicable(
                    path: store.path, reason: "'\(actor)' is expired already: \(r.explanation)")
            }
            let purge = try PurgePlan.make(HistoryQuery(before: Self.after(n)), in: store, mergeState: analysis)
            return plan(
                scenario, actor, purge: purge,
                expected: LaunchExpectation(
                    code: 134301, name: "NSPersistentHistoryTokenExpiredError",
                    behaviour:
                        """
                        its next history fetch after its token (#\(n)) fails with \
                        NSPersistentHistoryTokenExpiredError (134301); in SwiftData, \
                        SwiftDataError.historyTokenExpired: the app must drop its token and fetch all history \
                        again
                        """
                ),
                summary: "deletes every transaction through #\(n), the one \(actor)'s token names; nothing after it")
        case .missedChanges:
            guard r.positionDate != nil else {
                throw notApplicable("keeps a token: a purge past it expires it (expired-token)")
            }
            guard let m = r.pending.oldestNumber else {
                throw notApplicable(
                    """
                    has merged everything others wrote: there is nothing it has not merged to delete (let another \
                    author save first)
                    """
                )
            }
            let purge = try PurgePlan.make(HistoryQuery(before: Self.after(m)), in: store, mergeState: analysis)
            return plan(
                scenario, actor, purge: purge,
                expected: LaunchExpectation(
                    code: nil, name: nil,
                    behaviour:
                        """
                        no error: its next fetch after its date starts after #\(m), so it never merges #\(m), \
                        written by another author: the change is silently lost to it
                        """
                ),
                summary:
                    """
                    deletes every transaction through #\(m), the oldest by others that \(actor) has not merged, \
                    as a too-eager cleaner does
                    """
            )
        case .behind:
            guard by > 0 else { throw notApplicable("cannot move back by \(by) transactions: give a positive count") }
            guard let current = r.lastMerged?.number else {
                throw notApplicable("has a position before every transaction: it cannot move further back")
            }
            var earlier: [Transaction] = []
            try store.readTransactions(
                HistoryQuery(before: .transaction(current), limit: by, order: .descending), decoder: nil
            ) { try $0.forEach { tx, _ in earlier.append(tx) } }
            guard earlier.count == by, let target = earlier.last else {
                throw notApplicable(
                    """
                    has merged through #\(current), and only \(plural(earlier.count, "transaction")) \
                    \(earlier.count == 1 ? "is" : "are") before it
                    """
                )
            }
            let edit: PositionEdit
            if record.keyFormat == nil {
                guard let file = record.file else {
                    throw notApplicable("has a position given as a literal, in no file to rewrite")
                }
                edit = try PositionEdit.tokenFile(file, old: record.position) {
                    try TokenRewrite.moved($0, storeUUID: uuid, to: target.number, source: file)
                }
            } else {
                let file = try defaultsFile(record, actor: actor)
                let repair = try DefaultsRepair.plan(
                    path: file, actor: actor, target: .transaction(target.number), store: store,
                    customPrefixes: keyPrefixes)
                edit = try PositionEdit.defaults(
                    repair, actor: actor, old: record.position, storeUUID: store.storeUUID, prefixes: keyPrefixes)
            }
            return plan(
                scenario, actor, edit: edit,
                expected: LaunchExpectation(
                    code: nil, name: nil,
                    behaviour:
                        """
                        no error: it merges the \(plural(by, "transaction")) after #\(target.number) again, \
                        through #\(current): merging them twice must change nothing
                        """
                ),
                summary:
                    "moves \(actor)'s position back \(plural(by, "transaction")), from #\(current) to #\(target.number)"
            )
        case .foreignToken:
            guard r.tokenNumber != nil else {
                throw notApplicable("keeps a date, which names no store: only a token can be another store's")
            }
            let foreign = UUID().uuidString
            let edit = try rewrite(record, actor: actor, keyPrefixes: keyPrefixes) { bytes, source in
                try TokenRewrite.foreign(bytes, storeUUID: uuid, foreign: foreign, source: source)
            }
            return plan(
                scenario, actor, edit: edit,
                expected: LaunchExpectation(
                    code: 134501, name: nil,
                    behaviour:
                        """
                        its next history fetch fails with error 134501 (this store is not found in the token), as \
                        after a restored or replaced store: the app must drop its token and fetch all history \
                        again
                        """
                ),
                summary: "replaces \(actor)'s token by a well-formed token of store \(foreign)")
        case .corruptToken:
            if case .unreadable = record.position { throw notApplicable("has a position that cannot be read already") }
            let edit: PositionEdit
            if r.positionDate != nil {
                let file = try defaultsFile(record, actor: actor)
                let undecodable = PlistValue.data(TokenRewrite.undecodableArchive)
                let repair = try DefaultsRepair.plan(
                    path: file, actor: actor, store: store, customPrefixes: keyPrefixes
                ) { _, _ in undecodable }
                edit = try PositionEdit.defaults(
                    repair, actor: actor, old: record.position, storeUUID: store.storeUUID, prefixes: keyPrefixes)
            } else {
                edit = try rewrite(record, actor: actor, keyPrefixes: keyPrefixes) { bytes, _ in
                    TokenRewrite.corrupt(bytes)
                }
            }
            guard case .unreadable = edit.new else {
                throw notApplicable(
                    "would still have a readable position once rewritten; cdhist cannot corrupt this format")
            }
            // A token file read before it was rewritten says itself whether it held JSON.
            let isJSON =
                record.keyFormat == .jsonToken
                || (record.keyFormat == nil && JSONText.looksLikeJSON([UInt8](edit.bytesRead)))
            let behaviour =
                r.positionDate != nil
                ? """
                its saved date is no date any more: the app reads nil and merges all history again (or fails \
                where it assumes a date)
                """
                : isJSON
                    ? """
                    decoding its token fails (DecodingError.dataCorrupted, NSCoderReadCorruptError 4864): an app \
                    that forces the decode crashes at launch; a careful one drops it and fetches all history again
                    """
                    : """
                    unarchiving its token fails (NSCoderReadCorruptError 4864, or nil from unarchivedObject): an \
                    app that force-unwraps it crashes at launch; a careful one drops it and fetches all history \
                    again
                    """
            return plan(
                scenario, actor, edit: edit,
                expected: LaunchExpectation(
                    code: r.positionDate != nil ? nil : 4864,
                    name: r.positionDate != nil ? nil : "NSCoderReadCorruptError",
                    behaviour: behaviour),
                summary: "replaces \(actor)'s position by a value that does not decode, under the same key")
        case .cloudKitReset:
            return try planCloudKitReset(report, analysis: analysis)
        }
    }

    private func planCloudKitReset(_ report: MergeStateReport, analysis: MergeStateAnalysis) throws -> ProvokePlan {
        guard let exporter = report.exporter else {
            throw ProvokeError.notApplicable(
                path: store.path,
                reason: "the store holds no CloudKit mirroring state: there is no export position to purge past")
        }
        guard let n = exporter.tokenNumber else {
            throw ProvokeError.notApplicable(
                path: store.path,
                reason:
                    """
                    CloudKit mirroring's export position cannot be read, or names another store: \
                    \(exporter.explanation)
                    """
            )
        }
        guard exporter.lastMerged != nil else {
            throw ProvokeError.notApplicable(
                path: store.path,
                reason:
                    "CloudKit mirroring's export position (#\(n)) is gone already: the mirror resets on its next export"
            )
        }
        let purge = try PurgePlan.make(HistoryQuery(before: Self.after(n)), in: store, mergeState: analysis)
        return plan(
            .cloudKitReset, exporter.name, purge: purge,
            expected: LaunchExpectation(
                code: nil, name: nil,
                behaviour:
                    """
                    on its next export NSPersistentCloudKitContainer finds its history token expired, resets the \
                    mirror (reason: history expired) and uploads \(exporter.everyRecord) again
                    """
            ),
            summary: "deletes every transaction through #\(n), CloudKit mirroring's export position")
    }

    /// The bound that keeps transaction `n` and everything before it in a purge's selection.
    private static func after(_ n: Int64) -> HistoryQuery.Bound? { n < .max ? .transaction(n + 1) : nil }

    /// The defaults plist holding `record` at its top level.
    private func defaultsFile(_ record: MergeRecord, actor: String) throws -> String {
        guard let file = record.file, record.key != nil else {
            throw ProvokeError.notApplicable(
                path: record.file ?? store.path,
                reason:
                    """
                    '\(actor)' is kept inside a value (\(record.source)), not under a key of its own that cdhist \
                    can rewrite
                    """
            )
        }
        return file
    }

    /// `record`'s token (in a token file or a defaults value) rewritten by `body`, given its bytes and their source.
    private func rewrite(
        _ record: MergeRecord, actor: String, keyPrefixes: [String],
        _ body: @escaping ([UInt8], String) throws -> [UInt8]
    ) throws -> PositionEdit {
        if record.keyFormat == nil {
            guard let file = record.file else {
                throw ProvokeError.notApplicable(
                    path: store.path, reason: "'\(actor)' has a position given as a literal, in no file to rewrite")
            }
            return try PositionEdit.tokenFile(file, old: record.position) { try body($0, file) }
        }
        let file = try defaultsFile(record, actor: actor)
        let repair = try DefaultsRepair.plan(path: file, actor: actor, store: store, customPrefixes: keyPrefixes) {
            key, old in
            let source = "\(file) [\(key)]"
            if let bytes = old.dataValue { return .data(try body(bytes, source)) }
            if case .string(let text) = old {
                return .string(String(decoding: try body(Array(text.utf8), source), as: UTF8.self))
            }
            throw ProvokeError.notApplicable(path: source, reason: "holds \(old.kindName), not a token")
        }
        return try PositionEdit.defaults(
            repair, actor: actor, old: record.position, storeUUID: store.storeUUID, prefixes: keyPrefixes)
    }

    private func plan(
        _ scenario: ProvokeScenario, _ actor: String, purge: PurgePlan? = nil, edit: PositionEdit? = nil,
        expected: LaunchExpectation, summary: String
    ) -> ProvokePlan {
        let range = purge.flatMap { $0.preview.transactionCount > 0 ? $0.preview.numbers : nil }
        return ProvokePlan(
            scenario: scenario, actor: actor, storePath: store.path, purge: purge, edit: edit, deletedRange: range,
            expected: expected, summary: summary)
    }
}
