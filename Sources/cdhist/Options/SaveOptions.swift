import ArgumentParser

/// `--at-save N`: the store as it was after one save of its `-wal` (`cdhist saves` lists them).
struct SaveOptions: ParsableArguments {
    @Option(name: .customLong("at-save"),
            help: ArgumentHelp("Read the store as it was after this save of its -wal (from 1; cdhist saves lists them), as the output's first line, member or column says. Nothing is written or copied.",
                               valueName: "n"))
    var atSave: Int?

    func validate() throws {
        if let atSave, atSave < 1 { throw ValidationError("--at-save takes a save from 1 (cdhist saves lists them), not \(atSave)") }
    }
}

/// `--old-save N` and `--new-save N`: two saves of one store's `-wal` compared (`diff`).
struct SavePairOptions: ParsableArguments {
    @Option(name: .customLong("old-save"), help: ArgumentHelp("Read the old store as it was after this save of its -wal.", valueName: "n"))
    var old: Int?

    @Option(name: .customLong("new-save"), help: ArgumentHelp("Read the new store as it was after this save of its -wal.", valueName: "n"))
    var new: Int?

    func validate() throws {
        for (name, save) in [("--old-save", old), ("--new-save", new)] {
            if let save, save < 1 { throw ValidationError("\(name) takes a save from 1 (cdhist saves lists them), not \(save)") }
        }
    }

    /// `path` and the save it is read at, for people.
    static func label(_ path: String, save: Int?) -> String { save.map { "\(path) (save \($0))" } ?? path }
}
