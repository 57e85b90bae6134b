import ArgumentParser
import Foundation
import HistoryKit

/// The root command: one subcommand per task.
struct CDHist: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdhist",
        abstract: "Inspect and repair the persistent history of Core Data SQLite stores.",
        discussion: CommandHelp.tool,
        version: ToolVersion.line,
        subcommands: [
            InfoCommand.self, TransactionsCommand.self, ChangesCommand.self, ShowCommand.self,
            EntitiesCommand.self, AuthorsCommand.self, ObjectCommand.self, DeletedCommand.self, ExportCommand.self,
            WatchCommand.self, DiffCommand.self, ActorsCommand.self, TokenCommand.self,
            PurgeCommand.self, RepairDefaultsCommand.self, ProvokeCommand.self, CheckCommand.self, CloudKitCommand.self,
            TimelineCommand.self, ReportCommand.self,
            StoresCommand.self, SavesCommand.self, RecoverCommand.self, ReplCommand.self, MCPCommand.self,
        ]
    )
}
