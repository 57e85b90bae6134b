import ArgumentParser
import CBuildInfo
import CLineEditor
import Foundation
import HistoryKit

/// The root command: one subcommand per task.
struct CDHist: ParsableCommand {
    static let version = "0.1.0"

    /// `cdhist --version`: the version, the commit it was built from (scripts/install and
    /// scripts/package compile it in), the SQLite library in use and the session's line editor.
    static var versionLine: String {
        let commit = String(cString: cdhist_build_commit())
        let editor = String(cString: cdhist_line_editor_name())
        return "cdhist \(version) (commit \(commit.isEmpty ? "unknown" : commit), SQLite \(SQLiteLibrary.version), \(editor))"
    }

    static let configuration = CommandConfiguration(
        commandName: "cdhist",
        abstract: "Inspect and repair the persistent history of Core Data SQLite stores.",
        discussion: """
        cdhist STORE opens an interactive session on STORE (the same as cdhist repl STORE). Reads ATRANSACTION, ACHANGE and ATRANSACTIONSTRING as Core Data would, WAL included, \
        without changing any file (only purge --execute and repair-defaults --execute write). Exit status: 0 success, 1 findings (check) or a failed token check, 2 usage or file error.
        """,
        version: versionLine,
        subcommands: [
            InfoCommand.self, TransactionsCommand.self, ChangesCommand.self, ShowCommand.self,
            EntitiesCommand.self, AuthorsCommand.self, ObjectCommand.self, ExportCommand.self, WatchCommand.self, DiffCommand.self, ActorsCommand.self, TokenCommand.self,
            PurgeCommand.self, RepairDefaultsCommand.self, CheckCommand.self, CloudKitCommand.self, TimelineCommand.self, ReportCommand.self,
            ReplCommand.self,
        ]
    )
}
