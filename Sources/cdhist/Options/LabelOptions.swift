import ArgumentParser
import HistoryKit

/// `--labels` and `--label ENTITY=ATTRIBUTE`: a short human label per changed object.
struct LabelOptions: ParsableArguments {
    @Flag(
        help:
            """
            Label each object with a name- or title-like string attribute of its current row (or of its tombstone \
            once deleted).
            """
    )
    var labels = false

    @Option(
        help: ArgumentHelp(
            "Label ENTITY's objects (and its subentities') with ATTRIBUTE (repeatable; implies --labels).",
            valueName: "entity=attribute"))
    var label: [String] = []

    @Option(
        name: .customLong("labels-from"),
        help: ArgumentHelp(
            """
            Label objects whose rows are gone with their rows in this earlier copy of the store (a backup from \
            before the deletion; implies --labels).
            """,
            valueName: "store"), completion: .file())
    var labelsFrom: String?

    /// The labeler these options ask for; nil without --labels, --label or --labels-from.
    func labeler(_ session: Session, in context: CommandContext) throws -> ObjectLabeler? {
        try labeler(for: session.store, model: session.model.model, in: context)
    }

    /// The labeler for `store`'s objects, named through `model` (an earlier copy opened in `context`).
    func labeler(for store: HistoryStore, model: ManagedObjectModel?, in context: CommandContext) throws
        -> ObjectLabeler?
    {
        guard labels || !label.isEmpty || labelsFrom != nil else { return nil }
        let earlier = try labelsFrom.map { try context.openStore($0, lockTimeout: OpenOptions().busyTimeout) }
        if let earlier, earlier.storeUUID != store.storeUUID {
            throw CLIError.invalidValue(
                option: "--labels-from", value: earlier.path,
                reason: "its store UUID is \(earlier.storeUUID), not \(store.storeUUID): a copy of another store")
        }
        var given: [String: String] = [:]
        for pair in label {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw CLIError.invalidValue(option: "--label", value: pair, reason: "expected ENTITY=ATTRIBUTE")
            }
            given[parts[0]] = parts[1]
        }
        do {
            return try ObjectLabeler(store: store, model: model, given: given, earlier: earlier)
        } catch let error as LabelError {
            throw CLIError.invalidValue(option: "--label", value: label.joined(separator: " "), reason: describe(error))
        }
    }

    /// What these options and `values` ask to add to each change of `session`'s store.
    func noter(with values: ValueOptions, _ session: Session, in context: CommandContext) throws -> ChangeNoter {
        ChangeNoter(
            labeler: try labeler(session, in: context), values: try values.reader(session),
            storeUUID: session.store.storeUUID)
    }
}
