import ArgumentParser
import HistoryKit

/// `cdhist authors STORE`: who wrote history, with counts and time ranges.
struct AuthorsCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "authors",
        abstract: "List authors, context names, bundle IDs and processes with counts and time ranges.",
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist authors [<options>] <store>")

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var save: SaveOptions

    @Option(
        help: ArgumentHelp(
            "Only this field: author, context, bundle or process (repeatable; default: all).", valueName: "field"))
    var by: [FieldName] = []

    @OptionGroup var summary: SummaryOptions

    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let session = try Session.open(storeOptions, atSave: save.atSave, output: outputOptions, in: context)
        let time = session.context.time
        // Core Data's migrations and Apple's frameworks as one row each in tables (CloudKit's authors stay apart: they
        // differ).
        let families: Set<AuthorFamily> = summary.groupsFamilies(session.context) ? ListSummary.frameworkFamilies : []
        var sections: [Document.Section] = []
        var json: [(String, JSONValue)] = []
        let fields = by.isEmpty ? FieldName.allCases : by
        let all = try session.store.fieldSummaries(fields.map(\.transactionField))
        for field in fields {
            let summaries = all[field.transactionField] ?? []
            sections.append(
                .table(
                    title: field.title,
                    columns: [
                        Column("Value", fit: .wrap(min: 12)), Column("Transactions", alignRight: true),
                        Column("Changes", alignRight: true),
                        Column("First"), Column("Last"), Column("Numbers"),
                    ],
                    rows: ListSummary.grouped(
                        summaries, author: { field == .author ? $0.value : nil }, families: families
                    ).map { g in
                        let first = g.members.compactMap(\.firstTimestamp).min()
                        let last = g.members.compactMap(\.lastTimestamp).max()
                        let firstNumber = g.members.map(\.firstTransaction).min() ?? 0
                        let lastNumber = g.members.map(\.lastTransaction).max() ?? 0
                        return [
                            g.family == nil ? HistoryPresenter.optional(g.members.first?.value) : Cell(g.label),
                            Cell(String(g.members.reduce(0) { $0 + $1.transactionCount })),
                            Cell(String(g.members.reduce(0) { $0 + $1.changeCount })),
                            Cell(time.display(first)), Cell(time.display(last)),
                            Cell("#\(firstNumber)…#\(lastNumber)"),
                        ]
                    }))
            json.append(
                (
                    field.jsonKey,
                    .array(
                        summaries.map { s in
                            .object([
                                ("value", .optional(s.value)),
                                ("transactionCount", .int(Int64(s.transactionCount))),
                                ("changeCount", .int(Int64(s.changeCount))),
                                ("firstTimestamp", .optional(time.iso(s.firstTimestamp))),
                                ("lastTimestamp", .optional(time.iso(s.lastTimestamp))),
                                ("firstTransactionNumber", .int(s.firstTransaction)),
                                ("lastTransactionNumber", .int(s.lastTransaction)),
                            ])
                        })
                ))
        }
        DocumentRenderer.render(Document(kind: "authors", json: json, sections: sections), context: session.context)
    }
}
