import HistoryKit

/// Looks up what `--labels` and `--values` add to each change as it is read, for presenters to
/// show as values (``ChangeNotes``): a changed object's label, and its values before and after.
struct ChangeNoter {
    /// Neither labels nor values.
    static var none: ChangeNoter { ChangeNoter(labeler: nil, values: nil, storeUUID: "") }

    let labeler: ObjectLabeler?
    let values: SaveValues?
    /// The store whose objects' URIs the values name.
    let storeUUID: String

    /// Whether it adds nothing to a change (changes may then be written without decoding).
    var isEmpty: Bool { labeler == nil && values == nil }

    /// What the change's label and values are (a lookup that fails finds none).
    func notes(_ change: Change) -> ChangeNotes {
        guard !isEmpty else { return .none }
        var notes = ChangeNotes()
        if let labeler { notes.label = try? labeler.label(change) }
        if let values {
            notes.values = try? values.values(change)
            if notes.values == nil { notes.valuesMissing = values.whyMissing(change) }
        }
        return notes
    }

    /// `changes`, each with its notes as it is read.
    func noted(_ changes: ChangeStream) -> NotedChanges { NotedChanges(changes: changes, noter: self) }
}

/// The changes of one transaction, each with its ``ChangeNotes``, looked up as it is read.
struct NotedChanges {
    let changes: ChangeStream
    let noter: ChangeNoter

    /// Calls `body` with each change, decoded, and its notes, by change ID.
    func forEach(_ body: (Change, ChangeNotes) throws -> Void) throws {
        try changes.forEach { try body($0, noter.notes($0)) }
    }

    /// As ``forEach(_:)``, calling `plain` with each change that decodes without a warning (read
    /// in place, without notes: only when the noter adds nothing) and `decoded` with the others.
    func forEach(plain: (PlainChange) throws -> Void, decoded: (Change, ChangeNotes) throws -> Void) throws {
        guard noter.isEmpty else { return try forEach(decoded) }
        try changes.forEach(plain: plain, decoded: { try decoded($0, .none) })
    }
}
