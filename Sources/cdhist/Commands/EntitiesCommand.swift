import ArgumentParser
import HistoryKit

/// `cdhist entities STORE`: entities with change counts, slot layouts and tombstone attributes.
struct EntitiesCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "entities",
        abstract: "List entities: change counts, ZCOLUMNS slot layout and tombstone attributes.",
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist entities [<options>] <store>")

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var save: SaveOptions

    @Option(help: ArgumentHelp("Show the ZCOLUMNS slot layout of this entity.", valueName: "name"))
    var entity: String?

    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let session = try Session.open(storeOptions, atSave: save.atSave, output: outputOptions, in: context)
        session.noteModelProblem()
        let store = session.store
        let tally = try store.entityChangeCounts()
        if let name = entity, store.catalog.entity(named: name) == nil {
            throw QueryError.unknownEntity(name: name, known: store.catalog.entities.map(\.name))
        }
        let presenter = EntitiesPresenter(
            catalog: store.catalog,
            layouts: store.catalog.entities.reduce(into: [:]) {
                $0[$1.number] = session.decoder.layout(forEntity: $1.number)
            },
            modelProblem: session.model.problem?.text)
        DocumentRenderer.render(presenter.document(tally, entity: entity), context: session.context)
    }
}
