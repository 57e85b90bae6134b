import ArgumentParser
import HistoryKit

/// `cdhist deleted STORE`: what history shows deleted, for an analyst to read first.
struct DeletedCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "deleted",
        abstract:
            """
            List deleted objects per entity: when, by whom, tombstone values, label; and objects gone without a \
            recorded delete.
            """,
        discussion: CommandHelp.deleted)

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var save: SaveOptions

    @Option(
        help: ArgumentHelp("Only objects of this entity (repeatable).", valueName: "name"),
        completion: .custom(ObjectCompletion.shellEntities))
    var entity: [String] = []

    @Flag(name: .customLong("include-subentities"), help: "With --entity, also its subentities.")
    var includeSubentities = false

    @Option(help: ArgumentHelp("At most this many objects, in every format.", valueName: "n"))
    var limit: Int?

    @OptionGroup var summaryOptions: SummaryOptions
    @OptionGroup var labelOptions: LabelOptions
    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let session = try Session.open(storeOptions, atSave: save.atSave, output: outputOptions, in: context)
        session.noteModelProblem()
        // Labels always: a deleted object is named by its tombstone (or the earlier copy).
        var labels = labelOptions
        labels.labels = true
        let labeler = try labels.labeler(session, in: context)
        let presenter = DeletedPresenter(history: session.presenter, labels: labeler != nil)
        if let limit, limit < 0 {
            throw CLIError.invalidValue(option: "--limit", value: String(limit), reason: "must not be negative")
        }
        // A table shows the first rows of each entity, deleted and gone, after the count of all.
        let perEntity = summaryOptions.limit(session.context)
        let warnings = ValueWarnings(store: session.store.path)
        // Rows on a terminal show their own progress; written elsewhere, a count on stderr does.
        let terminal = session.context.terminal
        let progress = ProgressLine(
            context.console, enabled: terminal.stderrIsTerminal && !terminal.stdoutIsTerminal, every: 1024,
            quietFirst: true)
        var list: DeletedList?
        var shown = 0
        try DeletedObject.list(
            in: session.store, entities: entity, includeSubentities: includeSubentities, perEntity: perEntity,
            limit: limit, decoder: session.decoder,
            summary: { summary in
                list = DeletedList(
                    context: session.context, presenter: presenter, bounds: try session.store.numberBounds(),
                    summary: summary, header: [("storeID", .string(session.store.storeUUID))])
            }
        ) { object in
            if let change = object.change { warnings.add(change.warnings) }
            list?.add(object, label: labeler?.label(of: object))
            shown += 1
            progress.step { "\(progress.steps) objects listed" }
        }
        progress.finish(leaving: nil)
        list?.finish(shown: shown, perEntity: perEntity, limit: limit)
        warnings.report(to: context.console)
    }
}
