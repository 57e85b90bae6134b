import ArgumentParser

/// `--at-save N`: the store as it was after one save of its `-wal` (`cdhist saves` lists them).
struct SaveOptions: ParsableArguments {
    @Option(name: .customLong("at-save"),
            help: ArgumentHelp("Read the store as it was after this save of its -wal (from 1; cdhist saves lists them). Nothing is written or copied.",
                               valueName: "n"))
    var atSave: Int?

    func validate() throws {
        if let atSave, atSave < 1 { throw ValidationError("--at-save takes a save from 1 (cdhist saves lists them), not \(atSave)") }
    }
}
