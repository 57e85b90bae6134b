import HistoryKit

/// What `--labels` and `--values` add to one change, as values for a presenter to show: looked
/// up as the change is read (``ChangeNoter``), never by the presenter.
struct ChangeNotes {
    /// No label, no values: a change shown without either.
    static var none: ChangeNotes { ChangeNotes() }

    /// The changed object's label (nil: none found, or labels are not shown).
    var label: String?
    /// The values before and after the change (nil: the files do not hold them, or values are not shown).
    var values: SaveValues.Values?
    /// Why the files hold no values for the change, when values are shown and none were found.
    var valuesMissing: String?

    /// Why the values are partial or missing: the values' own note, else why there are none.
    var valuesNote: String? { values.map(\.why) ?? valuesMissing }
}
