import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist object STORE ID`: every change to one object, in order, and its
/// current values (or the tombstone it left).
struct ObjectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "object",
        abstract: "One object's life: every change to it in order, and its current values read through the model.",
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist object [<options>] <store> <id>",
        discussion: """
        ID is the object as an app logs it (x-coredata://STOREUUID/ENTITY/pN, or the description of its objectID) or ENTITY/pN. \
        A superentity's name finds its subentities' objects. Exit status 2 when the store has neither a row nor a change of the object.
        """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The object: ENTITY/pN or x-coredata://STOREUUID/ENTITY/pN.", valueName: "id"),
              completion: .custom(ObjectCompletion.shellObjects))
    var id: String

    @OptionGroup var labelOptions: LabelOptions
    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let session = try Session.open(storeOptions, output: outputOptions)
        session.noteModelProblem()
        let object = try SelectionOptions.object(id, option: "object")
        let labeler = try labelOptions.labeler(session)
        var history = session.presenter
        history.label(with: labeler)
        let presenter = ObjectPresenter(history: history, store: session.store, labeler: labeler)
        let warnings = ValueWarnings(store: session.store.path)
        // The row and the changes from one snapshot.
        try session.store.snapshot {
            let lookup = try session.store.objectState(object, model: session.model.model)
            let query = HistoryQuery(objects: [object])
            if case .missing(let reason) = lookup, try session.store.countTransactions(query) == 0 {
                throw CLIError.notFound(path: session.store.path, what: "no object \(object): \(reason), and no change to it in the history")
            }
            switch session.context.format {
            case .table, .csv: return try text(session, presenter, object, lookup, query, warnings)
            case .json, .ndjson: return try json(session, presenter, object, lookup, query, warnings)
            }
        }
        warnings.report()
    }

    private func text(_ session: Session, _ presenter: ObjectPresenter, _ object: ObjectReference, _ lookup: ObjectLookup,
                      _ query: HistoryQuery, _ warnings: ValueWarnings) throws {
        let context = session.context
        let label = try self.label(session, presenter, lookup, query)
        DocumentRenderer.render(Document(kind: "object", json: [], sections: [.fields(title: nil, presenter.headerFields(object, lookup: lookup, label: label))]),
                                context: context)
        context.output.line()
        if context.format == .table { context.output.line(context.style("Changes", .bold)) }
        let list = ListRenderer(context: context, kind: "changes", columns: presenter.changeColumns(try session.store.numberBounds()))
        var life = ObjectHistory()
        try session.store.forEachTransactionWithChanges(query, decoder: session.decoder) { tx, changes in
            warnings.add(tx.warnings)
            try changes.forEach { change in
                warnings.add(change.warnings)
                life.add(change, of: tx)
                list.add(cells: presenter.cells(tx, change))
            }
        }
        list.finish()
        context.output.line()
        var sections: [Document.Section] = [.note(presenter.summary(life, lookup: lookup))]
        if case .found(let state) = lookup {
            sections.append(.table(title: "Current values", columns: ObjectPresenter.valueColumns, rows: presenter.valueRows(state)))
            sections += state.problems.map { .note("note: \($0)") }
        }
        DocumentRenderer.render(Document(kind: "object", json: [], sections: sections), context: context)
    }

    /// The object's label: its row's, or for an object no longer in the store its last delete's tombstone's.
    private func label(_ session: Session, _ presenter: ObjectPresenter, _ lookup: ObjectLookup, _ query: HistoryQuery) throws -> String? {
        guard let labeler = presenter.labeler else { return nil }
        if case .found(let state) = lookup { return presenter.label(of: state.object) }
        var label: String?
        try session.store.forEachTransactionWithChanges(query, decoder: session.decoder) { _, changes in
            try changes.forEach { change in
                if change.changeType == .delete, let text = try labeler.label(change) { label = text }
            }
        }
        return label
    }

    private func json(_ session: Session, _ presenter: ObjectPresenter, _ object: ObjectReference, _ lookup: ObjectLookup,
                      _ query: HistoryQuery, _ warnings: ValueWarnings) throws {
        let context = session.context
        let output = context.output
        let store = session.store
        let pretty = context.format == .json && context.terminal.stdoutIsTerminal
        var s = JSONBytes(capacity: 1 << 16, prettyIndent: pretty ? 0 : nil)
        s.beginObject()
        s.member("format", jsonFormatTag)
        s.member("kind", "object")
        s.member("storeID", store.storeUUID)
        var state: ObjectState?
        if case .found(let found) = lookup { state = found }
        let reference = state?.object ?? object
        s.member("object", reference.uri(storeUUID: store.storeUUID))
        s.member("entity", reference.entityName)
        s.member("entityPK", reference.primaryKey)
        if presenter.labeler != nil { s.member("label", try label(session, presenter, lookup, query)) }
        s.member("inStore", state != nil)
        s.member("table", state?.table)
        s.member("version", state?.version)
        s.key("values")
        if let state { presenter.writeValues(state, to: &s) } else { s.null() }
        if case .missing(let reason) = lookup { s.member("missing", reason) } else { s.member("missing", nil as String?) }
        s.key("problems")
        s.beginArray()
        for problem in state?.problems ?? [] { s.string(problem) }
        s.endArray()
        s.key("transactions")
        s.beginArray()
        var life = ObjectHistory()
        try store.forEachTransactionWithChanges(query, decoder: session.decoder) { tx, changes in
            warnings.add(tx.warnings)
            try presenter.history.writeTransaction(tx, changes: changes, format: nil, to: &s, spill: output.spill) { change in
                warnings.add(change.warnings)
                life.add(change, of: tx)
            }
        }
        s.endArray()
        s.key("summary")
        s.beginObject()
        s.member("changes", life.changeCount)
        s.member("transactions", life.transactionCount)
        for (key, moment) in [("first", life.first), ("last", life.last), ("inserted", life.inserted), ("deleted", life.deleted)] {
            s.key(named: key)
            presenter.write(moment, to: &s)
        }
        s.endObject()
        s.endObject()
        s.bytes.append(0x0A)
        output.write(bytes: s.bytes)
        output.flush()
    }
}
