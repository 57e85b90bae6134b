/// The server's tools, one per question a user asks of a store's history, each the cdhist
/// command that answers it.
enum ToolCatalog {
    /// The tools a server offers: those that read, and with `allowingWrites` the previews of
    /// the writes (their previewID is what ``ExecuteTool`` carries out).
    static func tools(allowingWrites: Bool) -> [ToolDefinition] {
        allowingWrites ? reading(allowingWrites: true) + writePreviews : reading
    }

    /// Every tool that reads (the server offers these always).
    static let reading = reading(allowingWrites: false)

    /// The tools that read; with `allowingWrites`, the purge's preview takes the execution's
    /// choices too and gives a previewID.
    private static func reading(allowingWrites: Bool) -> [ToolDefinition] {
        [
            ToolDefinition(
                "find_stores", command: "stores", leftOut: ["names"],
                """
                Find Core Data stores (with their history and merge-state files) in folders, zip archives or a \
                simulator device set, or the store of an app on the booted simulator by its bundle ID. Start \
                here when the store's path is not known.
                """
            ),
            ToolDefinition(
                "info",
                """
                Summarize one store: its identity, files, history size and counts, time range, and traces of \
                earlier purges. A good first call on a store.
                """
            ),
            ToolDefinition(
                "actors",
                """
                Per-actor merge state (app, widget, extension, CloudKit): what each has merged from history, \
                what it still has to merge, and whether it is behind, stuck or expired. Give the App Group's \
                defaults plist, token files or group container as the app keeps them.
                """
            ),
            ToolDefinition(
                "check",
                """
                Run the health rules (expired or stale actors, history size, attribution, the -wal, orphans, \
                ZCOLUMNS, free pages) and report each finding with its severity and advice.
                """
            ),
            ToolDefinition(
                "transactions", pagesRows: true,
                """
                List history transactions (saves) with author, context, bundle, process, time, token and \
                change count, filtered by time, number, author, entity, type or object; paged.
                """
            ),
            ToolDefinition(
                "changes", pagesRows: true,
                """
                List changes (inserts, updates with their updated properties, deletes with tombstones) with \
                their transactions, filtered as transactions are; paged.
                """
            ),
            ToolDefinition(
                "show",
                """
                What one save changed: one transaction with each change, its updated properties and, while the \
                -wal holds them, the values before and after.
                """
            ),
            ToolDefinition(
                "object",
                """
                One object's life: every change to it in order, and its current values (or its tombstone once \
                deleted).
                """
            ),
            ToolDefinition(
                "deleted",
                """
                Objects deleted, per entity: when, by whom, and their tombstone values; and objects whose rows \
                are gone without a recorded delete.
                """
            ),
            ToolDefinition(
                "saves",
                """
                The saves still in the store's -wal (not yet checkpointed): each commit's frames and pages, \
                the history transactions it added, and the rows it changed per entity.
                """
            ),
            ToolDefinition(
                "recover",
                """
                What the saves still in the -wal hold that the store no longer does: history a purge removed, \
                and deleted objects with their values.
                """
            ),
            purgePreview(allowingWrites: allowingWrites),
            ToolDefinition(
                "cloudkit",
                """
                CloudKit mirroring's state: its export position, records awaiting upload or deletion, objects \
                changed since their export, fetches and events.
                """
            ),
            ToolDefinition(
                "diff",
                """
                Compare two copies of a store: transactions purged, added and rewritten, and what the added \
                ones did to objects.
                """
            ),
        ]
    }

    /// The purge's preview: with writes allowed, it takes the execution's own choices too and
    /// gives a previewID (never `--no-backup`, never a backup path of the agent's).
    static func purgePreview(allowingWrites: Bool) -> ToolDefinition {
        ToolDefinition(
            "purge_preview", command: "purge",
            leftOut: allowingWrites
                ? ["execute", "backup", "no_backup", "yes"]
                : ["execute", "backup", "no_backup", "prune_strings", "vacuum", "allow_expire", "yes"],
            execution: allowingWrites ? ["--execute", "--yes"] : nil,
            """
            Preview a purge of history (before a date, transaction or token, or as a popular cleaner would \
            cut it), what it would delete and which actors it would break. Nothing is deleted.
            """ + (allowingWrites ? " Its previewID is what execute carries out (after a backup)." : "")
        )
    }

    /// The previews of the other writes, offered with writes allowed.
    static let writePreviews: [ToolDefinition] = [
        ToolDefinition(
            "repair_defaults_preview", command: "repair-defaults", leftOut: ["execute", "backup"],
            execution: ["--execute"],
            """
            Preview moving or removing an actor's merge position in the shared defaults plist (to a date, \
            tx:N, the oldest or the newest transaction), keeping every other key. Its previewID is what \
            execute carries out (the plist is backed up beside it).
            """
        ),
        ToolDefinition(
            "provoke_preview", command: "provoke", leftOut: ["execute", "undo", "force", "preview"],
            execution: ["--execute"],
            """
            Preview putting a store into a failure the app must survive (expired token, missed changes, \
            behind by N, foreign or corrupt token, CloudKit reset); the app must be quit. Its previewID is \
            what execute carries out, copying every file it changes first (provoke_undo_preview puts them \
            back).
            """
        ),
        ToolDefinition(
            "provoke_undo_preview", command: "provoke", only: ["store", "force"], words: ["--undo"],
            previewWords: ["--preview"], execution: [],
            """
            Preview putting back every file the store's last provocation changed, byte for byte, and what was \
            written since (refused then, unless force, which loses it); the app must be quit. Its previewID is \
            what execute carries out.
            """
        ),
    ]
}
