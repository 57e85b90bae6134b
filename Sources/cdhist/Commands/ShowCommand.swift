import ArgumentParser
import HistoryKit

/// `cdhist show STORE TX`: one transaction and its decoded changes.
struct ShowCommand: ParsableCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one transaction and its decoded changes.",
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist show [<options>] <store> <transaction>")

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var save: SaveOptions

    @Argument(help: ArgumentHelp("The transaction: a number, tx:N, token:FILE or token:STOREUUID:N.", valueName: "transaction"))
    var transaction: String

    @OptionGroup var labelOptions: LabelOptions
    @OptionGroup var valueOptions: ValueOptions
    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let session = try Session.open(storeOptions, atSave: save.atSave, output: outputOptions)
        session.noteModelProblem()
        let number = try resolveNumber(session.store)
        // The transaction and its changes from one snapshot (its change count matches the rows shown).
        let (found, changes) = try session.store.snapshot {
            (try session.store.transaction(number: number), try session.store.changes(inTransaction: number, decoder: session.decoder))
        }
        guard let tx = found else {
            throw CLIError.notFound(path: session.store.path, what: try missing(number, in: session.store))
        }
        var presenter = try labelOptions.presenter(session)
        try valueOptions.apply(to: &presenter, session: session)
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
            json: [("transaction", presenter.json(tx, changes: changes))],
            sections: [
                .fields(title: nil, fields),
                .table(title: "Changes", columns: presenter.changeColumns(try session.store.numberBounds()), rows: changes.map { presenter.cells($0, color: color) }),
            ])
        DocumentRenderer.render(document, context: session.context)
        let warnings = ValueWarnings(store: session.store.path)
        warnings.add(tx.warnings)
        for change in changes { warnings.add(change.warnings) }
        warnings.report()
    }

    /// Why transaction `number` is not shown: the transactions the store has, and when a save still in its
    /// -wal removed it (a purge), which save did and the command that shows it.
    private func missing(_ number: Int64, in store: HistoryStore) throws -> String {
        let range = try store.statistics().transactionNumbers
        let has = range.map { "the store has #\($0.lowerBound)…#\($0.upperBound)" } ?? "the store has no transactions"
        let what = "no transaction \(number) (\(has))"
        // Beyond the newest, no save removed it; a store without a -wal has no saves.
        guard range.map({ number < $0.upperBound }) ?? true, store.files.walSize != nil,
              let log = try? SaveLog.read(store),
              let removal = try? SaveRecovery.removal(ofTransaction: number, in: store, log: log, through: save.atSave)
        else { return what }
        let words = storeOptions.booted.words ?? [storeOptions.store]
        let recover = ShellWord.line(["cdhist", "recover"] + words)
        guard let held = removal.heldAfter, held > 0 else {
            return what + "; save \(removal.removedBy) of its -wal removed it: \(recover) shows what the saves removed"
        }
        let show = ShellWord.line(["cdhist", "show"] + words + ["\(number)", "--at-save", "\(held)"])
        return what + "; save \(removal.removedBy) of its -wal removed it, and the store as it was after save \(held) "
            + "still has it: \(show) shows it (\(recover) lists all that the saves removed)"
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
            throw CLIError.invalidValue(option: "transaction", value: transaction, reason: "expected a number, tx:N, token:FILE or token:STOREUUID:N")
        }
    }
}
