import ArgumentParser
import HistoryKit

/// `cdhist transactions STORE`: the transactions matching the filters.
struct TransactionsCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "transactions",
        abstract: "List transactions (number, time, author, context, bundle, process, change count).")

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var save: SaveOptions
    @OptionGroup var filters: FilterOptions
    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let session = try Session.open(storeOptions, atSave: save.atSave, output: outputOptions, in: context)
        let query = try filters.query(utc: outputOptions.utc)
        let presenter = session.presenter
        let list = ListRenderer(
            context: session.context, kind: "transactions",
            columns: presenter.transactionColumns(try session.store.numberBounds()),
            header: [("storeID", .string(session.store.storeUUID))])
        let warnings = ValueWarnings(store: session.store.path)
        let store = session.store
        if list.takesChunks {
            let chunks = ListChunks(
                presenter: presenter, storeUUID: store.storeUUID, tagged: session.context.format == .ndjson)
            try list.addInChunks(
                ChunkedWrite.transactions(store, query, decoder: nil), warnings: warnings, chunks.transactions)
        } else if list.takesCSVChunks {
            let chunks = ListChunks(presenter: presenter, storeUUID: store.storeUUID, tagged: false)
            let rows = list.csvRows(header: HistoryPresenter.transactionCSVNames)
            try list.addCSVInChunks(
                header: rows, ChunkedWrite.transactions(store, query, decoder: nil), warnings: warnings,
                chunks.transactionCSV(rows))
        } else if list.takesTableChunks {
            let chunks = ListChunks(presenter: presenter, storeUUID: store.storeUUID, tagged: false)
            let sample = try chunks.transactionSample(store, query)
            try list.addTableInChunks(
                sample, ChunkedWrite.transactions(store, query, decoder: nil), warnings: warnings,
                chunks.transactionRows(after: sample))
        } else {
            try store.readTransactions(query, decoder: nil, layout: .oneRead) {
                try $0.forEach { tx, _ in
                    warnings.add(tx.warnings)
                    list.add(cells: presenter.cells(tx), record: presenter.record(tx))
                }
            }
        }
        list.finish()
        warnings.report(to: context.console)
        if list.added == 0 { try session.noteUnmatchedNames(query) }
    }
}
