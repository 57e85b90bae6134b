import Foundation
import HistoryKit

/// `token`: each token a file or literal holds, with its transaction and, against a store, the
/// status and explanation `actors` gives the same position.
struct TokenPresenter {
    let time: TimeFormatter
    /// The store as the user named it, when the tokens were checked against one.
    let storeName: String?
    let storeUUID: String?

    func document(_ report: TokenReport) -> Document {
        var sections: [Document.Section] = []
        let several = report.entries.count > 1
        // A header names the file when it says more than one token's fields would.
        let header = several || !report.otherStoreKeys.isEmpty || report.inferredKeyPrefix != nil
        if header {
            var fields = [
                ("Token", report.source),
                ("Holds", several ? "\(report.entries.count) tokens, one under each key" : "1 token"),
            ]
            if let prefix = report.inferredKeyPrefix {
                fields.append(
                    ("Key prefix", "\(prefix)<actor>: inferred from the store's authors, as actors reads the keys"))
            }
            let others = report.otherStoreKeys
            if !others.isEmpty {
                let named =
                    others.prefix(3).joined(separator: ", ")
                    + (others.count > 3 ? ", … and \(others.count - 3) more" : "")
                fields.append(
                    (
                        "Other stores",
                        "\(plural(others.count, "key")) (\(named)) keep other stores' positions, not checked"
                    ))
            }
            sections.append(.fields(title: nil, fields))
        }
        var entries: [JSONValue] = []
        for entry in report.entries {
            var fields: [(String, String)] = header ? [] : [("Token", report.source)]
            fields += describe(entry)
            sections.append(.fields(title: entry.key.map { "Key \($0)" }, fields))
            entries.append(.object(json(entry)))
        }
        var json: [(String, JSONValue)] = [("source", .string(report.source))]
        if !several, let only = report.entries.first {
            json += self.json(only).filter { $0.0 != "key" && $0.0 != "actor" }
        }
        json += [
            ("otherStoreKeys", .array(report.otherStoreKeys.map(JSONValue.string))),
            ("inferredKeyPrefix", .optional(report.inferredKeyPrefix)),
            ("tokens", .array(entries)),
        ]
        return Document(kind: "token", json: json, sections: sections)
    }

    private func describe(_ entry: TokenReport.Entry) -> [(String, String)] {
        var fields: [(String, String)] = []
        switch entry.record.position {
        case .token(let token):
            // The store's UUID in the value, not the name: a 42-wide name would push every value to the right.
            for (uuid, n) in token.transactionNumbers.sorted(by: { $0.key < $1.key }) {
                fields.append(("Transaction", "#\(n) of store \(uuid)"))
            }
            if token.transactionNumbers.count > 1 {
                fields.append(("Note", "this token names \(token.transactionNumbers.count) stores"))
            }
        case .unreadable(let why) where entry.judged == nil:
            // Against a store, the meaning says why.
            fields.append(("Problem", why))
        case .unreadable:
            break
        case .date:
            break
        }
        if let judged = entry.judged, let storeName, let storeUUID {
            fields += [
                ("Checked against", "\(storeName) (\(storeUUID))"), ("Status", judged.status.rawValue),
                ("Meaning", judged.explanation),
            ]
            if judged.status.isBroken { fields.append(("Advice", "\(judged.advice)")) }
        } else if entry.isBroken {
            fields.append(("Status", ActorStatus.corruptToken.rawValue))
        }
        return fields
    }

    private func json(_ entry: TokenReport.Entry) -> [(String, JSONValue)] {
        var json: [(String, JSONValue)] = [
            ("key", .optional(entry.key)), ("actor", .string(entry.record.actor)),
            ("token", entry.token.map(HistoryPresenter.json) ?? .null),
        ]
        if case .unreadable(let why) = entry.record.position { json.append(("problem", .string(why))) }
        if let judged = entry.judged, let storeName, let storeUUID {
            json += [
                ("store", .string(storeName)), ("storeID", .string(storeUUID)),
                ("status", .string(judged.status.rawValue)),
                ("message", .string(judged.explanation)), ("advice", .string("\(judged.advice)")),
                ("transactionNumber", .optional(judged.tokenNumber)),
                ("transaction", judged.lastMerged.map { HistoryPresenter(time: time).json($0) } ?? .null),
            ]
        } else if entry.isBroken {
            json.append(("status", .string(ActorStatus.corruptToken.rawValue)))
        }
        return json
    }
}
