import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist stores [PLACE…]`: the history stores under folders, simulators, containers, Xcode
/// downloads, iOS backups and zip archives, each with the name every command takes.
struct StoresCommand: HistoryCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract:
            """
            Find Core Data stores with history: in folders, simulators, Mac containers, .xcappdata downloads, iOS \
            backups and zip archives.
            """,
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist stores [<place> ...] [<options>]",
        discussion: CommandHelp.stores)

    @Argument(
        help: ArgumentHelp(
            """
            Folders (searched through), simulator device sets or devices, .xcappdata downloads, backup folders, \
            .zip archives.
            """,
            valueName: "place"))
    var places: [String] = []

    @Flag(
        help:
            """
            Also list the problems found on the way (stores without history, damaged files, encrypted backups), \
            not only their count.
            """
    )
    var all = false

    @Flag(
        help:
            """
            Print only the stores' names, one per line, as other commands take them (for scripts: while read -r \
            store; do …).
            """
    )
    var names = false

    @Option(
        help: ArgumentHelp(
            """
            Only the stores of this app (its bundle identifier) on the booted simulator: its containers and App \
            Groups.
            """,
            valueName: "bundle-id"))
    var booted: String?

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if booted != nil && !places.isEmpty { throw ValidationError("give places or --booted, not both") }
    }

    func run(_ context: CommandContext) throws {
        let render = outputOptions.context(in: context)
        for place in places where !FileManager.default.fileExists(atPath: place) {
            throw CLIError.notFound(path: place, what: "no such file or folder")
        }
        let given = !places.isEmpty
        let places =
            try booted.map { try BootedSimulator.containers(bundleID: $0).containers }
            ?? (given ? places : StoreFinder.defaultPlaces())
        let progress = ProgressLine(
            context.console, enabled: render.terminal.stderrIsTerminal, every: 256, quietFirst: true)
        let listing = StoreFinder.find(in: places, zipsInFolders: given) { examined in
            progress.advance(by: examined - progress.steps) { "looked at \(examined) files…" }
        }
        progress.finish(leaving: nil)
        let presenter = StoresPresenter(time: render.time, all: all)
        if names {
            presenter.writeNames(listing, context: render)
        } else {
            DocumentRenderer.render(presenter.document(listing, places: places), context: render)
        }
        if listing.stores.isEmpty { throw ExitCode(1) }
    }
}
