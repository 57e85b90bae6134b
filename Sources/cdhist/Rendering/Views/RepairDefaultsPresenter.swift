import Foundation
import HistoryKit

/// `repair-defaults`: the keys a repair changes, old and new, and what was written.
struct RepairDefaultsPresenter {
    let time: TimeFormatter
    let plist: String
    let actor: String

    /// The plan's changes; with `executed`, where the original was copied (`backup`).
    func document(_ plan: DefaultsRepairPlan, executed: Bool, backup: String?) -> Document {
        var fields: [(String, String)] = [("Plist", "\(plist) (\(plan.format.rawValue))"), ("Actor", actor)]
        for c in plan.changes {
            fields.append((c.key, "\(describe(c.old)) → \(describe(c.new))"))
        }
        fields.append(
            ("Other keys", "\(plan.original.count - plan.changes.filter { $0.old != nil }.count) kept exactly"))
        var json: [(String, JSONValue)] = [
            ("plist", .string(plist)), ("plistFormat", .string(plan.format.rawValue)), ("actor", .string(actor)),
            (
                "changes",
                .array(
                    plan.changes.map { c in
                        .object([("key", .string(c.key)), ("old", jsonValue(c.old)), ("new", jsonValue(c.new))])
                    })
            ),
            ("skippedTransactions", .int(Int64(plan.skipped))),
            ("executed", .bool(executed)),
        ]
        if let backup {
            fields.append(("Written", "backup of the original: \(backup)"))
            json.append(("backup", .string(backup)))
        } else {
            fields.append(
                ("Preview", "nothing was changed; add --execute\(plan.skipped > 0 ? " --allow-skip" : "") to write it"))
        }
        var sections: [Document.Section] = [.fields(title: nil, fields)]
        if plan.skipped > 0 {
            sections.append(
                .note(
                    """
                    Warning: \(actor) \(executed ? "skips" : "would skip") \(plural(plan.skipped, "transaction")) \
                    by others it has not merged: it will never merge them. To have it merge them, move it with \
                    --to-oldest or --remove instead (it then fetches \
                    them)\(executed ? "" : "; writing this move needs --allow-skip").
                    """
                ))
        }
        return Document(kind: "repair-defaults", json: json, sections: sections)
    }

    private func describe(_ value: PlistValue?) -> String {
        guard let value else { return "(none)" }
        switch value {
        case .date(let d): return "date \(time.display(d))"
        case .data, .string:
            if let held = value.heldToken { return (held.isArchive ? "token " : "JSON token ") + "\(held.token)" }
            return value.dataValue.map { "\($0.count) bytes of data" } ?? "\(value)"
        default: return "\(value)"
        }
    }

    private func jsonValue(_ value: PlistValue?) -> JSONValue {
        guard let value else { return .null }
        switch value {
        case .date(let d): return .object([("date", .optional(time.iso(d))), ("cocoaDate", .double(d))])
        case .data, .string:
            if let held = value.heldToken { return .object([("token", HistoryPresenter.json(held.token))]) }
            return value.dataValue.map { .object([("bytes", .int(Int64($0.count)))]) } ?? .string("\(value)")
        default: return .string("\(value)")
        }
    }
}
