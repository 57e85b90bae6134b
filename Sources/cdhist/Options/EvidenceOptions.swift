import ArgumentParser
import HistoryKit

/// `--hash`: the SHA-256 of the store's files and of the merge-state files, before and after reading.
struct EvidenceOptions: ParsableArguments {
    @Flag(
        help:
            """
            Record the SHA-256, size and time of the store, its -wal and -shm (and merge-state files) before and \
            after reading; fails if any changed.
            """
    )
    var hash = false

    @Option(
        help: ArgumentHelp(
            """
            With --hash, also hash this defaults plist (repeatable; default: the merge-state files found beside \
            the store).
            """,
            valueName: "plist"))
    var defaults: [String] = []

    @Option(
        help: ArgumentHelp(
            "With --hash, also hash this token file (repeatable; ACTOR=FILE as elsewhere).", valueName: "file"))
    var token: [String] = []

    func validate() throws {
        if !hash, !defaults.isEmpty || !token.isEmpty {
            throw ValidationError("--defaults and --token name files to hash: add --hash")
        }
    }

    /// The files to hash for the store `name` (and the model, when a path is given); nil without --hash.
    func inputs(store name: String, model: String?) throws -> [EvidenceInput]? {
        guard hash else { return nil }
        return try MergeStateRequest(defaults: defaults, tokens: token, now: 0)
            .evidenceInputs(storeName: name, others: [(.model, model)], requireGiven: true)
    }
}
