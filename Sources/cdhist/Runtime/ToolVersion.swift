import CBuildInfo
import CLineEditor
import HistoryKit

/// What cdhist is: its version, and what `--version` says of its build.
public enum ToolVersion {
    public static let number = "0.1.0"

    /// `cdhist --version`: the version, the commit it was built from (scripts/install and
    /// scripts/package compile it in), the SQLite library in use and the session's line editor.
    static var line: String {
        let editor = String(cString: cdhist_line_editor_name())
        return "cdhist \(number) (commit \(commit ?? "unknown"), SQLite \(SQLiteLibrary.version), \(editor))"
    }

    /// The commit this build was made from; nil when not compiled in (a plain `swift build`).
    static var commit: String? {
        let commit = String(cString: cdhist_build_commit())
        return commit.isEmpty ? nil : commit
    }
}
