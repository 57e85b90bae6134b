import Foundation
import HistoryKit

/// SARIF 2.1.0, as code-scanning services take it: the rules with their ids and help, one result
/// per finding located on the store file (the whole file: its first line, as they require one).
enum SARIFLog {
    static func text(_ outcome: CheckOutcome) -> String {
        let rules = outcome.rules
        let uri = self.uri(outcome.store)
        let location: JSONValue = .object([
            (
                "physicalLocation",
                .object([
                    ("artifactLocation", .object([("uri", .string(uri)), ("index", .int(0))])),
                    ("region", .object([("startLine", .int(1))])),
                ])
            )
        ])
        var seen: [String: Int] = [:]
        let results: [JSONValue] = outcome.findings.map { f in
            // What the finding is about (its actor, entity or author), and which of those it is, so that
            // an alert stays one alert across runs.
            let subject = fingerprint(f)
            let occurrence = seen[subject, default: 0]
            seen[subject] = occurrence + 1
            var pairs: [(String, JSONValue)] = [("ruleId", .string(f.ruleID))]
            if let index = rules.firstIndex(where: { $0.id == f.ruleID }) {
                pairs.append(("ruleIndex", .int(Int64(index))))
            }
            pairs += [
                ("level", .string(level(f.severity))),
                ("message", .object([("text", .string(CheckOutcome.text(f)))])),
                ("locations", .array([location])),
                ("partialFingerprints", .object([("cdhistFinding/v1", .string("\(subject):\(occurrence)"))])),
            ]
            return .object(pairs)
        }
        let driver: JSONValue = .object([
            ("name", .string("cdhist")),
            ("version", .string(outcome.toolVersion)),
            (
                "rules",
                .array(
                    rules.map { r in
                        .object([
                            ("id", .string(r.id)),
                            ("name", .string(r.id)),
                            ("shortDescription", .object([("text", .string(r.summary))])),
                            ("fullDescription", .object([("text", .string(r.summary))])),
                            (
                                "help",
                                .object([
                                    (
                                        "text",
                                        .string(
                                            """
                                            \(r.summary). Each finding says what to do; cdhist(1) describes the \
                                            rule under check.
                                            """
                                        )
                                    )
                                ])
                            ),
                            ("defaultConfiguration", .object([("level", .string(level(r.severity)))])),
                        ])
                    })
            ),
        ])
        let log: JSONValue = .object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            (
                "runs",
                .array([
                    .object([
                        ("tool", .object([("driver", driver)])),
                        ("artifacts", .array([.object([("location", .object([("uri", .string(uri))]))])])),
                        ("results", .array(results)),
                    ])
                ])
            ),
        ])
        var out: [UInt8] = []
        log.pretty(into: &out)
        return String(decoding: out, as: UTF8.self) + "\n"
    }

    static func level(_ severity: Severity) -> String {
        switch severity {
        case .error: return "error"
        case .warning: return "warning"
        case .info: return "note"
        }
    }

    /// The store as a URI reference: a relative path stays relative (to the checkout, as code
    /// scanning expects), an absolute one becomes a `file://` URI; reserved characters are escaped.
    static func uri(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ";?#[]@")
        let escaped = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return path.hasPrefix("/") ? "file://" + escaped : escaped
    }

    private static func fingerprint(_ f: Finding) -> String {
        let subject = ["actor", "entity", "author"].compactMap { f.data[$0]?.stringValue }.first ?? ""
        return "\(f.ruleID):\(subject)"
    }
}
