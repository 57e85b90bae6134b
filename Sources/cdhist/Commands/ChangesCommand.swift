import ArgumentParser
import HistoryKit

/// `cdhist changes STORE`: decoded changes matching the filters.
struct ChangesCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "List changes with entity, object ID, updated properties and tombstones.")

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var save: SaveOptions
    @OptionGroup var filters: FilterOptions
    @OptionGroup var labelOptions: LabelOptions
    @OptionGroup var valueOptions: ValueOptions
    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let session = try Session.open(storeOptions, atSave: save.atSave, output: outputOptions, in: context)
        session.noteModelProblem()
        let query = try filters.query(utc: outputOptions.utc)
        let noter = try labelOptions.noter(with: valueOptions, session, in: context)
        var presenter = session.presenter
        presenter.show(noter)
        let color = session.context.color
        let list = ListRenderer(
            context: session.context, kind: "changes",
            columns: presenter.changeColumns(try session.store.numberBounds()),
            header: [("storeID", .string(session.store.storeUUID))])
        let warnings = ValueWarnings(store: session.store.path)
        let store = session.store
        let decoder = session.decoder
        // Labels and values are looked up on one connection, in order: read in one go then.
        if list.takesChunks, noter.isEmpty {
            let chunks = ListChunks(
                presenter: presenter, storeUUID: store.storeUUID, tagged: session.context.format == .ndjson)
            try list.addInChunks(
                ChunkedWrite.changes(store, query, decoder: decoder), warnings: warnings,
                chunks.changes(writing: PlainChangeWriter(decoder: decoder, csvRaw: false)))
        } else if list.takesCSVChunks, noter.isEmpty {
            let chunks = ListChunks(presenter: presenter, storeUUID: store.storeUUID, tagged: false)
            let rows = list.csvRows(header: HistoryPresenter.changeRowCSVNames)
            try list.addCSVInChunks(
                header: rows, ChunkedWrite.changesWithTransactions(store, query, decoder: decoder), warnings: warnings,
                chunks.changeCSV(writing: PlainChangeWriter(decoder: decoder, csvRaw: rows.raw), rows))
        } else if list.takesTableChunks, noter.isEmpty {
            let chunks = ListChunks(presenter: presenter, storeUUID: store.storeUUID, tagged: false)
            let sample = try chunks.changeSample(store, query, decoder: decoder, color: color)
            try list.addTableInChunks(
                sample, ChunkedWrite.changes(store, query, decoder: decoder), warnings: warnings,
                chunks.changeRows(
                    after: sample, writing: PlainChangeWriter(decoder: decoder, csvRaw: false), color: color))
        } else {
            // A CSV row (with labels or values) is a change with its transaction's time and names
            // first, as export's rows begin.
            let transactions =
                session.context.format == .csv ? TransactionLookup(store: store) { warnings.add($0.warnings) } : nil
            try store.readChanges(query, decoder: decoder, layout: .oneRead) {
                try $0.forEach { change in
                    warnings.add(change.warnings)
                    let notes = noter.notes(change)
                    if let transactions {
                        list.add(
                            cells: [],
                            record: presenter.record(
                                change, of: try transactions.transaction(change.transactionNumber), notes: notes))
                    } else {
                        list.add(
                            cells: presenter.cells(change, color: color, notes: notes),
                            record: presenter.record(change, notes: notes))
                    }
                }
            }
        }
        list.finish()
        warnings.report(to: context.console)
        if list.added == 0 { try session.noteUnmatchedNames(query) }
    }
}
