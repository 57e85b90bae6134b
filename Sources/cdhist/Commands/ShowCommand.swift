import ArgumentParser
import HistoryKit

/// `cdhist show STORE TX`: one transaction and its decoded changes.
struct ShowCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one transaction and its decoded changes.",
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist show [<options>] <store> <transaction>")

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var save: SaveOptions

    @Argument(
        help: ArgumentHelp(
            "The transaction: a number, tx:N, token:FILE or token:STOREUUID:N.", valueName: "transaction"))
    var transaction: String

    @OptionGroup var labelOptions: LabelOptions
    @OptionGroup var valueOptions: ValueOptions
    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let session = try Session.open(storeOptions, atSave: save.atSave, output: outputOptions, in: context)
        session.noteModelProblem()
        let number = try resolveNumber(session.store)
        // The transaction and its changes from one read (its change count matches the rows shown).
        var found: Transaction?
        var changes: [Change] = []
        let bounds = HistoryQuery.Bound.around(number...number)
        try session.store.readTransactions(
            HistoryQuery(after: bounds.after, before: bounds.before), decoder: session.decoder, layout: .oneRead
        ) {
            try $0.forEach { tx, stream in
                found = tx
                try stream.forEach { changes.append($0) }
            }
        }
        guard let tx = found else {
            let words = storeOptions.booted.words ?? [storeOptions.store]
            throw CLIError.notFound(
                path: session.store.path, what: try MissingTransaction(store: session.store, words: words).why(number))
        }
        let noter = try labelOptions.noter(with: valueOptions, session, in: context)
        var presenter = session.presenter
        presenter.show(noter)
        let noted = changes.map { ($0, noter.notes($0)) }
        let time = session.context.time
        let fields: [(String, String)] = [
            ("Transaction", String(tx.number)),
            ("Time", time.display(tx.timestamp)),
            ("Author", tx.author ?? "-"),
            ("Context", tx.contextName ?? "-"),
            ("Bundle", tx.bundleID ?? "-"),
            ("Process", tx.processID ?? "-"),
            ("Token", tx.token.description),
            ("Changes", String(tx.changeCount)),
        ]
        let color = session.context.color
        let document = Document(
            kind: "transaction",
            json: [("transaction", presenter.json(tx, changes: noted))],
            sections: [
                .fields(title: nil, fields),
                .table(
                    title: "Changes", columns: presenter.changeColumns(try session.store.numberBounds()),
                    rows: noted.map { presenter.cells($0, color: color, notes: $1) }),
            ])
        DocumentRenderer.render(document, context: session.context)
        let warnings = ValueWarnings(store: session.store.path)
        warnings.add(tx.warnings)
        for change in changes { warnings.add(change.warnings) }
        warnings.report(to: context.console)
    }

    private func resolveNumber(_ store: HistoryStore) throws -> Int64 {
        if let n = Int64(transaction) { return n }
        let parser = PositionParser(utc: outputOptions.utc)
        switch try parser.bound(transaction, option: "transaction") {
        case .transaction(let n):
            return n
        case .token(let token):
            guard let n = token.transactionNumber(forStore: store.storeUUID) else {
                throw QueryError.tokenForOtherStore(token: token, storeUUID: store.storeUUID)
            }
            return n
        case .date:
            throw CLIError.invalidValue(
                option: "transaction", value: transaction,
                reason: "expected a number, tx:N, token:FILE or token:STOREUUID:N")
        }
    }
}
