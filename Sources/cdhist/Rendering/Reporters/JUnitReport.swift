import HistoryKit

/// JUnit XML: a test case per rule run; a rule with findings at or above the failing severity
/// fails, with each finding in the failure's text; findings below it are the case's output.
enum JUnitReport {
    static func text(_ outcome: CheckOutcome) -> String {
        let failures = outcome.rules.filter { rule in
            outcome.findings.contains { $0.ruleID == rule.id && outcome.fails($0) }
        }.count
        let name = escape("cdhist check \(TerminalText.visible(outcome.store))")
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="\(name)" tests="\(outcome.rules.count)" failures="\(failures)" errors="0">
              <testsuite name="\(name)" tests="\(outcome.rules.count)" failures="\(failures)" errors="0" skipped="0">
                <properties>
                  <property name="store" value="\(escape(TerminalText.visible(outcome.store)))"/>
                  <property name="failOn" value="\(outcome.threshold.rawValue)"/>
                  <property name="version" value="\(escape(outcome.toolVersion))"/>
                </properties>

            """
        for rule in outcome.rules {
            let found = outcome.findings.filter { $0.ruleID == rule.id }
            let failing = found.filter(outcome.fails)
            let passing = found.filter { !outcome.fails($0) }
            let head = "    <testcase classname=\"cdhist.check\" name=\"\(escape(rule.id))\""
            guard !found.isEmpty else {
                xml += head + "/>\n"
                continue
            }
            xml += head + ">\n"
            if !failing.isEmpty {
                let worst = failing.map(\.severity).max() ?? rule.severity
                let message =
                    """
                    \(failing.count) finding\(failing.count == 1 ? "" : "s") at or above \
                    \(outcome.threshold.rawValue): \(rule.summary)
                    """
                xml += "      <failure type=\"\(worst.rawValue)\" message=\"\(escape(message))\">"
                xml += escape(failing.map(CheckOutcome.text).joined(separator: "\n")) + "</failure>\n"
            }
            if !passing.isEmpty {
                xml +=
                    "      <system-out>"
                    + escape(
                        passing.map { "\($0.severity.rawValue): \(CheckOutcome.text($0))" }.joined(separator: "\n"))
                    + "</system-out>\n"
            }
            xml += "    </testcase>\n"
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    /// Text safe in XML 1.0 content and quoted attributes (control characters are already
    /// shown as escapes by ``CheckOutcome/text(_:)`` and `TerminalText`).
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "\n"
            default:
                // XML 1.0 cannot hold other C0 characters, nor U+FFFE and U+FFFF, even as references.
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
