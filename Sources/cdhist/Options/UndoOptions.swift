import ArgumentParser

/// `--undo` and `--force`: put back what a provocation changed, even what was written since.
struct UndoOptions: ParsableArguments {
    @Flag(help: "Put back every file the store's last provocation changed, byte for byte.")
    var undo = false

    @Flag(
        help: "With --undo: put the files back even when the app wrote since the provocation (what it wrote is lost).")
    var force = false

    @Flag(help: "With --undo: show what it would put back, and what was written since, changing nothing.")
    var preview = false

    func validate() throws {
        if force && !undo { throw ValidationError("--force goes with --undo: cdhist provoke --undo STORE --force") }
        if preview && !undo {
            throw ValidationError("--preview goes with --undo (a provocation previews unless --execute)")
        }
    }
}
