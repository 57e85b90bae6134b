import Foundation
import HistoryKit

/// `provoke`: the failure a store is put into, the files it changes, and what the app meets next.
struct ProvokePresenter {
    let time: TimeFormatter
    let store: String
    /// The options that read the merge state, as given (for the commands to run next).
    var mergeStateWords: [String] = []
    /// The store as the commands to run next name it (`--booted ID` when it was given so); nil: its path.
    var storeWords: [String]?

    /// The plan; with `result`, what was done.
    func document(_ plan: ProvokePlan, result: ProvokeResult?) -> Document {
        var fields: [(String, String)] = [
            ("Scenario", plan.scenario.rawValue), ("Store", store), ("Actor", plan.actor), ("Does", plan.summary),
        ]
        if let edit = plan.edit {
            fields.append(("Position", "\(describe(edit.old)) → \(describe(edit.new))"))
            fields.append(("In", "\(edit.path) (\(edit.kind))"))
        }
        if let purge = plan.purge {
            let p = purge.preview
            let range = plan.deletedRange.map { " (#\($0.lowerBound)–#\($0.upperBound))" } ?? ""
            fields.append(
                (
                    result == nil ? "Deletes" : "Deleted",
                    """
                    \(plural(result?.transactionsDeleted ?? p.transactionCount, "transaction"))\(range) and \
                    \(plural(p.changeCount, "change")); \(p.survivingTransactions) survive
                    """
                ))
        }
        // What else the purge breaks: other actors, CloudKit's exporter.
        let others = plan.purge?.preview.consequences.filter { $0.actor != plan.actor } ?? []
        if !others.isEmpty {
            fields.append(("Also breaks", others.map { "\($0.actor) (\($0.status.rawValue))" }.joined(separator: ", ")))
        }
        // Readers no file shows (Spotlight's), named as purge names them for the same deletion.
        let readers = plan.purge?.preview.hiddenReaders ?? []
        for r in readers { fields.append(("May break", HiddenReaderText.purgeWarning(r))) }
        fields.append(("Next launch", plan.expected.behaviour))
        fields.append(
            (
                "Then check",
                plan.checkRule.map { "reports \($0) (exit 1)" }
                    ?? (plan.scenario == .missedChanges
                        ? "reports nothing: with no transaction left, no rule can date what was deleted"
                        : "reports actor-behind only past its thresholds; actors shows the position moved")
            ))
        var json: [(String, JSONValue)] = [
            ("scenario", .string(plan.scenario.rawValue)), ("store", .string(store)), ("actor", .string(plan.actor)),
            ("executed", .bool(result != nil)), ("summary", .string(plan.summary)),
        ]
        if let edit = plan.edit {
            json.append(
                (
                    "position",
                    .object([
                        ("file", .string(edit.path)), ("old", positionJSON(edit.old)), ("new", positionJSON(edit.new)),
                    ])
                ))
        }
        let files: [JSONValue]
        if let result {
            fields.append(("Backups", ProvokeBackup.folder(forStore: store)))
            files = result.files.map { f in
                .object([
                    ("path", .string(f.path)), ("existed", .bool(f.backup != nil)), ("backup", .optional(f.backup)),
                    ("sha256", .optional(f.sha256)),
                ])
            }
        } else {
            files = plan.files.map { path in
                .object([
                    ("path", .string(path)), ("existed", .bool(FileStatus(path) != nil)), ("backup", .null),
                    ("sha256", .null),
                ])
            }
        }
        json += [
            ("files", .array(files)),
            ("transactionsDeleted", .int(Int64(result?.transactionsDeleted ?? plan.transactionsDeleted))),
            (
                "alsoBreaks",
                .array(others.map { .object([("actor", .string($0.actor)), ("status", .string($0.status.rawValue))]) })
            ),
            ("hiddenReaders", .array(readers.map(HiddenReaderText.json))),
            (
                "deletedRange",
                plan.deletedRange.map { .object([("first", .int($0.lowerBound)), ("last", .int($0.upperBound))]) }
                    ?? .null
            ),
            (
                "expectedAtLaunch",
                .object([
                    ("code", plan.expected.code.map { .int(Int64($0)) } ?? .null),
                    ("name", .optional(plan.expected.name)),
                    ("behaviour", .string(plan.expected.behaviour)),
                ])
            ),
            ("checkRule", .optional(plan.checkRule)),
        ]
        var sections: [Document.Section] = [.fields(title: nil, fields)]
        if result != nil {
            sections.append(
                .commands(
                    title: "Relaunch the app, then check, then put every file back:",
                    [
                        ["cdhist", "check"] + (storeWords ?? [store]) + mergeStateWords,
                        ["cdhist", "provoke", "--undo"] + (storeWords ?? [store]),
                    ]))
        } else {
            sections.append(
                .note(
                    """
                    Preview: nothing was changed. Quit the app first; --execute copies every file it changes, \
                    then does it.
                    """
                ))
        }
        return Document(kind: "provoke", json: json, sections: sections)
    }

    /// The files an undo put back or removed; with `executed` false, those it would (`--preview`,
    /// with `force` as it would be run).
    func undone(_ undone: ProvokeBackup.Undone, executed: Bool, force: Bool = false) -> Document {
        let files = undone.files
        let rows: [(String, String)] = files.map { f in
            (
                f.backup != nil ? (executed ? "Put back" : "Would put back") : (executed ? "Removed" : "Would remove"),
                f.backup != nil ? "\(f.path), SHA-256 \(f.sha256 ?? "")" : f.path
            )
        }
        let json: [(String, JSONValue)] = [
            ("store", .string(store)),
            ("executed", .bool(executed)),
            (
                "files",
                .array(
                    files.map { f in
                        .object([
                            ("path", .string(f.path)), ("action", .string(f.backup != nil ? "restored" : "removed")),
                            ("sha256", .optional(f.sha256)),
                        ])
                    })
            ),
        ]
        let note: String
        switch (undone.unfinished, executed) {
        case (true, true):
            note = """
                The provocation was stopped while it copied the files, before it changed any: its unfinished \
                copies are removed.
                """
        case (true, false):
            note = """
                The provocation was stopped while it copied the files, before it changed any: --undo removes its \
                unfinished copies.
                """
        case (false, true):
            note =
                "Every file is as it was before the provocation; its backups are removed."
                + (undone.discarded.map { " What was written since is gone: \($0.lost)." } ?? "")
        case (false, false):
            let since =
                undone.discarded.map { drift in
                    force
                        ? " What was written since would be gone: \(drift.lost)."
                        : " Written since: \(drift.lost); --undo refuses to lose it (--force loses it)."
                } ?? ""
            note = "Nothing is changed. --undo puts every file back as it was before the provocation." + since
        }
        return Document(
            kind: "provoke-undo",
            json: json + [
                ("unfinished", .bool(undone.unfinished)),
                (
                    "discarded",
                    undone.discarded.map { d in
                        .object([
                            ("transactions", .array(d.transactions.map { .int($0.number) })),
                            ("transactionCount", .int(Int64(d.transactionCount))),
                            ("files", .array(d.files.map { .string($0) })),
                        ])
                    } ?? .null
                ),
            ],
            sections: [.fields(title: nil, [("Store", store)] + rows), .note(note)])
    }

    private func describe(_ position: MergePosition) -> String {
        switch position {
        case .date(let d, _): return "date \(time.display(d))"
        case .token(let t): return "token \(t)"
        case .unreadable: return "a value that does not decode"
        }
    }

    private func positionJSON(_ position: MergePosition) -> JSONValue {
        switch position {
        case .date(let d, _):
            return .object([("type", .string("date")), ("date", .optional(time.iso(d))), ("cocoaDate", .double(d))])
        case .token(let t): return .object([("type", .string("token")), ("token", HistoryPresenter.json(t))])
        case .unreadable(let why): return .object([("type", .string("unreadable")), ("problem", .string(why))])
        }
    }
}
