import HistoryReading

/// `wal-damaged`: a frame of the `-wal` whose checksum does not chain hides every commit after
/// it: SQLite (and so the app, and every read of the store) stops at the last commit before it.
struct WALDamagedRule: CheckRule {
    let id = "wal-damaged"
    let severity = Severity.warning
    let summary = "a damaged frame of the -wal hides the commits after it"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let hidden = c.store.hiddenWALFrames else { return [] }
        return [
            finding(
                RuleMessages.walDamaged(path: c.store.path, hidden: hidden),
                [
                    "damagedFrame": .integer(Int64(hidden.damagedFrame)),
                    "firstFrame": .integer(Int64(hidden.firstFrame)),
                    "lastFrame": .integer(Int64(hidden.lastFrame)),
                    "hiddenFrames": .integer(Int64(hidden.frames)), "hiddenCommits": .integer(Int64(hidden.commits)),
                ])
        ]
    }
}
