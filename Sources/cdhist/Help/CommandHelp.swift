import HistoryKit

/// The long help of each command: the text `--help` and `cdhist help COMMAND` print after the
/// usage, kept apart from the commands' logic so that the words are in one place.
enum CommandHelp {
    /// `ActorsCommand`'s discussion.
    static let actors = """
        Positions come from --defaults, --token and --group-container, and from the store itself: a store mirrored \
        with CloudKit has its exporter as an actor (CloudKit export), with no option needed.

        Cleaner strategies, each as the code it follows computes it: \
        \(CleanerStrategy.allCases.map { "\($0.rawValue) (\($0.source))" }.joined(separator: "; ")). In the table, \
        strategies with the same cut-off and effect share a row, and what rows have in common is said once under it; \
        --all gives each strategy its own row with its rule.
        """

    /// `cdhist`'s own discussion (the tool, before its commands).
    static let tool = """
        cdhist STORE opens an interactive session on STORE (the same as cdhist repl STORE). Reads ATRANSACTION, \
        ACHANGE and ATRANSACTIONSTRING as Core Data would, WAL included, without changing any file (only purge \
        --execute and repair-defaults --execute write). Exit status: 0 success, 1 findings (check) or a failed token \
        check, 2 usage or file error.
        """

    /// `CheckCommand`'s discussion.
    static let check = """
        Exit status: 0 when nothing is at or above --fail-on (default error), 1 when something is, 2 on usage or file \
        errors. Rules: \(Checker.rules.map { "\($0.id) (\($0.severity.rawValue))" }.joined(separator: ", ")).
        """

    /// `CloudKitCommand`'s discussion.
    static let cloudKit = """
        Reads the ANSCK tables NSPersistentCloudKitContainer (and SwiftData with iCloud) keeps in the store, or the \
        keys of its first release in Z_METADATA. What an OS version's tables lack is said, not guessed. On a store \
        that is not mirrored, one line says so (exit status 0).
        """

    /// `DeletedCommand`'s discussion.
    static let deleted = """
        A table first counts per entity the objects deleted, how many of those deletes kept tombstone values, and the \
        objects gone without a recorded delete; then it lists the first 10 objects of each entity (--all: every one). \
        JSON, NDJSON and CSV list every object; --limit caps every format. Deletes come from history with their \
        tombstones. An object history shows inserted or changed whose row is no longer in its table and that no delete \
        names is listed after them, marked: its delete was purged since (a purge of one author's transactions), or it \
        was deleted outside Core Data. Objects are labelled from the tombstone, or with --labels-from from an earlier \
        copy of the store.
        """

    /// `DiffCommand`'s discussion.
    static let diff = """
        Reads both in step by transaction number (any size: only counts are kept). Rewritten transactions have the \
        same number in both but other content (a restored or replaced store). In a session, diff OTHER compares the \
        open store (old) with OTHER (new). With --old-save and --new-save, two saves of one store's -wal: diff S S \
        --old-save 3 --new-save 9. Exit status: 0 when the histories are identical, 1 when they differ, 2 on an error \
        (and for stores of different UUIDs, unless --force).
        """

    /// `ObjectCommand`'s discussion.
    static let object = """
        ID is the object as an app logs it (x-coredata://STOREUUID/ENTITY/pN, or the description of its objectID) or \
        ENTITY/pN. A superentity's name finds its subentities' objects. Exit status 2 when the store has neither a row \
        nor a change of the object.
        """

    /// `ProvokeCommand`'s discussion.
    static let provoke = """
        Scenarios: expired-token (deletes history through the transaction the actor's token names: 134301), \
        missed-changes (deletes the oldest transaction by others an actor keeping a date has not merged), behind \
        (moves the actor back --by N transactions), foreign-token (a token of another store: 134501), corrupt-token (a \
        value that does not decode, under the same key), cloudkit-reset (deletes history through CloudKit mirroring's \
        export position). The merge state is read as actors reads it. --execute refuses while another process has the \
        store open, copies every file it changes byte for byte into STORE.cdhist-provoke, then changes them; --undo \
        STORE puts each back, checks its SHA-256, removes the copies (refused, saying what would be lost, when the app \
        wrote since, unless --force); --undo --preview shows what it would do, changing nothing.
        """

    /// `PurgeCommand`'s discussion.
    static let purge = """
        The preview changes nothing; it shows the cut-off (a relative date such as 7d counts back from --now). \
        --execute prints the preview; refuses a read-only store, one another process is writing to, one that changed \
        since the preview (an app that only has it open is not seen: quit it first) and a purge that would break an \
        actor (unless --allow-expire); asks before a purge that deletes every transaction or knows no actor's position \
        (--yes does not ask, and is needed without a terminal); writes a backup with SQLite's online backup, deletes \
        in one transaction, checks PRAGMA quick_check and the counts, and restores the backup if either fails.
        """

    /// `RecoverCommand`'s discussion.
    static let recover = """
        Each history transaction a save removed (a purge run while the -wal held it) is read, with its changes, from \
        the store as it was before that save, and each object a save deleted with every value its row had before. What \
        a log reset took is gone: frames of an earlier generation of the log are only listed with what they hold. \
        Nothing is written.
        """

    /// `RepairDefaultsCommand`'s discussion.
    static let repairDefaults = """
        Quit the app, its extensions and the simulator first: running processes cache their defaults and may write \
        them back.
        """

    /// `MCPCommand`'s discussion.
    static let mcp = """
        Each tool runs the cdhist command of its name (find_stores is stores, purge_preview is purge without \
        --execute) on the arguments its schema lists, and returns the JSON document that command prints with \
        --format json, as text and as structured content. A longer answer comes in pages: its page member gives the \
        rows it holds, their total, and the cursor of the next page; a row too large for a page has its strings over \
        200 characters cut (cutStrings says how many). Every tool only reads; with --allow-writes, \
        previews of a purge, a repair and a provocation give a previewID that the execute tool carries out once, \
        while the files are unchanged. Standard output carries protocol messages only; notices go to standard \
        error. The server ends when its input closes. It is the executable cdhist-mcp, installed beside cdhist.
        """

    /// `ReplCommand`'s discussion.
    static let repl = """
        In a script the first failing command stops it with exit status 2 and its line number, unless --keep-going.
        """

    /// `ReportCommand`'s discussion.
    static let report = """
        One file with inline CSS and SVG, no script and nothing fetched: open it in a browser, print it to PDF, attach \
        it to a bug report. It is written under a temporary name beside --out and renamed when complete; the store and \
        the merge-state files are only read. --strategy also names the app's cleaner for the check, as check \
        --strategy does.
        """

    /// `SavesCommand`'s discussion.
    static let saves = """
        A store in WAL mode keeps every page written since its -wal was last reset, commit by commit: the store as it \
        was after each save. Any read command takes --at-save N to read it as it was after save N, and says so first. \
        A save is partial when a checkpoint has already copied later frames into the main file: the largest commit \
        after which every page written so far is, in the main file, its last copy (within what the -shm records when \
        it indexes this -wal). An empty -wal, or none, holds no save. Frames after the last commit (a save that never \
        finished), frames of an earlier generation of the log and damage are listed apart. Nothing is written.
        """

    /// `StoresCommand`'s discussion.
    static let stores = """
        Each row names a store the way every other command takes it: a path, or, inside a backup or an archive, the \
        backup folder or the .zip followed by the file's path in it. Only headers, schemas and indexes are read; \
        nothing is written. Without a place: on macOS the simulators' device sets and the Mac's Containers and Group \
        Containers, elsewhere the current folder. Exit status: 0 when a store was found, 1 when none was, 2 on a usage \
        error.
        """

    /// `TimelineCommand`'s discussion.
    static let timeline = """
        One lane per author (the busiest --top; the others share one lane), or per context, bundle ID or process with \
        --by, one column per time bucket from the first to the last transaction (of --after and --before when given), \
        drawn with block characters scaled to the busiest bucket. Under the time axis, a row per actor with a recorded \
        position (from --defaults, --token or --group-container) and one for the cut-off of --purge-before or \
        --strategy. JSON and CSV give every lane's count per bucket.
        """

    /// `TokenCommand`'s discussion.
    static let token = """
        A plist holding several tokens (shared defaults keeping each actor's) shows each under its key, damaged ones \
        included. Against --store each gets the status cdhist actors gives the same position. Exit status: 0 when \
        every token is readable and, with --store, neither expired (nor beyond the newest transaction) nor for another \
        store; 1 otherwise; 2 on errors.
        """

    /// `WatchCommand`'s discussion.
    static let watch = """
        Starts after the newest transaction (or after --since) and runs until Ctrl-C (exit 0), or until --limit \
        transactions were printed. A strict reader: it looks at the files every --interval milliseconds and opens the \
        store only when they changed, holds no lock between looks, no read while it writes (a reader that stalls does \
        not stop the app's checkpoints) and creates no file. It reports a purge by another process and a checkpoint, \
        and stops with status 2 when the store is deleted or replaced. NDJSON (the default when not writing to a \
        terminal) is what export writes, one transaction per line, with an object per event ({"event":"purged"} or \
        {"event":"checkpoint"}).
        """
}
