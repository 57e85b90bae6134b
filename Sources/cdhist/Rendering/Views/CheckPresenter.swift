import Foundation
import HistoryKit

/// `check`: findings, worst first, with the exit status they mean, as a document.
enum CheckPresenter {
    /// "1 error", "2 warnings", "3 info".
    static func counted(_ n: Int, _ severity: Severity) -> String {
        "\(n) \(severity.rawValue)\(n == 1 || severity == .info ? "" : "s")"
    }

    static func document(_ findings: [Finding], store: HistoryStore, threshold: Severity, failing: Int) -> Document {
        let counts = Severity.allCases.map { s in (s, findings.filter { $0.severity == s }.count) }
        let summary =
            findings.isEmpty
            ? "no findings" : counts.filter { $0.1 > 0 }.map { counted($0.1, $0.0) }.joined(separator: ", ")
        return Document(
            kind: "check",
            json: [
                ("store", .string(store.path)),
                ("storeID", .string(store.storeUUID)),
                ("failOn", .string(threshold.rawValue)),
                (
                    "findings",
                    .array(
                        findings.map { f in
                            .object([
                                ("rule", .string(f.ruleID)), ("severity", .string(f.severity.rawValue)),
                                ("message", .string(f.message.text)),
                                ("data", PlistJSON.value(.dictionary(f.data))),
                            ])
                        })
                ),
                ("counts", .object(counts.map { ($0.0.rawValue, .int(Int64($0.1))) })),
                ("failed", .bool(failing > 0)),
            ],
            sections: [
                .fields(
                    title: nil,
                    [
                        ("Store", "\(store.path) (\(store.storeUUID))"), ("Findings", summary),
                        (
                            "Result",
                            failing > 0
                                ? "\(failing) at or above \(threshold.rawValue): exit status 1"
                                : "nothing at or above \(threshold.rawValue)"
                        ),
                    ]),
                .table(
                    title: nil, columns: [Column("Severity"), Column("Rule"), Column("Finding", fit: .below)],
                    rows: findings.map { f in
                        [
                            Cell(
                                f.severity.rawValue,
                                f.severity == .error ? .red : f.severity == .warning ? .yellow : nil), Cell(f.ruleID),
                            Cell(f.message.text),
                        ]
                    }),
            ])
    }
}

/// Finding data (plist-shaped values) as JSON.
enum PlistJSON {
    static func value(_ v: PlistValue) -> JSONValue {
        switch v {
        case .string(let s): return .string(s)
        case .integer(let i): return .int(i)
        case .real(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .date(let d): return .double(d)
        case .data(let bytes): return .string(bytes.map { String(format: "%02x", $0) }.joined())
        case .array(let items): return .array(items.map(value))
        case .dictionary(let dict): return .object(dict.keys.sorted().map { ($0, value(dict[$0] ?? .null)) })
        case .uid(let u): return .int(Int64(bitPattern: u))
        case .null: return .null
        }
    }
}
