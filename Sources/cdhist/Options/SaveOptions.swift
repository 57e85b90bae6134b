import ArgumentParser
import HistoryKit

/// `--at-save N`: the store as it was after one save of its `-wal` (`cdhist saves` lists them).
/// Its value is taken whatever it looks like, so that `--at-save -1` is told what a save number is
/// rather than that the option has no value.
struct SaveOptions: ParsableArguments {
    @Option(
        name: .customLong("at-save"), parsing: .unconditional,
        help: ArgumentHelp(
            """
            Read the store as it was after this save of its -wal (from 1; cdhist saves lists them), as the \
            output's first line, member or column says. Nothing is written or copied.
            """,
            valueName: "n"))
    var atSave: Int?

    func validate() throws {
        if let atSave, atSave < 1 { throw ValidationError(Self.notASave("--at-save", atSave)) }
    }

    /// The error for a save number below 1.
    static func notASave(_ option: String, _ value: Int) -> String {
        "\(option) takes a save number from 1 (cdhist saves STORE lists the saves of its -wal), not \(value)"
    }
}

/// `--old-save N` and `--new-save N`: two saves of one store's `-wal` compared (`diff`).
struct SavePairOptions: ParsableArguments {
    @Option(
        name: .customLong("old-save"), parsing: .unconditional,
        help: ArgumentHelp("Read the old store as it was after this save of its -wal.", valueName: "n"))
    var old: Int?

    @Option(
        name: .customLong("new-save"), parsing: .unconditional,
        help: ArgumentHelp("Read the new store as it was after this save of its -wal.", valueName: "n"))
    var new: Int?

    func validate() throws {
        for (name, save) in [("--old-save", old), ("--new-save", new)] {
            if let save, save < 1 { throw ValidationError(SaveOptions.notASave(name, save)) }
        }
    }

    /// `path` and the save `store` is read at, for people: which of how many, exact or partial and why.
    static func label(_ path: String, store: HistoryStore) -> String {
        store.savePoint.map { at in
            "\(path) (save \(at.save) of \(at.of), " + (at.why.map { "partial: \($0)" } ?? "exact") + ")"
        } ?? path
    }
}
