import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist info STORE`: what the store is and how much history it holds.
struct InfoCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract:
            "Summarise a store: UUID, framework version, files, history size, counts, time range, traces of purges.",
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist info [<options>] <store>")

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var save: SaveOptions
    @Flag(
        name: .customLong("change-types"), help: "Also count changes by type (reads every change: seconds on millions)."
    )
    var changeTypes = false

    @OptionGroup var evidence: EvidenceOptions

    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        // Hashed before anything is read, and again once everything is.
        var exam = try evidence.inputs(store: storeOptions.store, model: storeOptions.model).map {
            try Examination.begin($0)
        }
        let session = try Session.open(storeOptions, atSave: save.atSave, output: outputOptions, in: context)
        let stats = try session.store.statistics(countingChangeTypes: changeTypes)
        var document = InfoPresenter(time: session.context.time).document(
            store: session.store, stats: stats, model: session.model)
        if var taken = exam {
            try taken.finish()
            EvidencePresenter(time: session.context.time).add(taken, access: session.store.access, to: &document)
            exam = taken
        }
        DocumentRenderer.render(document, context: session.context)
        try exam?.verify()
    }
}
