import HistoryAnalysis
import HistoryReading

/// What the check rules say, in one place: each finding's text, made from the values its
/// rule found, so that the words are read (and changed) apart from the logic that finds.
enum RuleMessages {
    /// `actor-behind`.
    static func actorBehind(_ a: ActorReport, report: MergeStateReport, behind: Double, config: CheckConfig) -> Message
    {
        """
        \(a.name) has \(plural(a.pending.count, "transaction")) by others to merge, \
        \(report.lagClock.behind(behind)) (thresholds: \
        \(plural(config.maxPendingTransactions, "transaction")), \
        \(span(config.maxLagDays * 86400, exact: true))). It has not run, or it merges under another \
        author name.
        """
    }

    /// `actor-not-merging`.
    static func actorNotMerging(_ a: ActorReport) -> Message {
        """
        \(a.name) wrote \(plural(a.pending.ownCount, "transaction")) after its merge position, \
        \(a.pending.ownAfterOthers) of them after transactions by others it has not merged \
        (\(plural(a.pending.count, "transaction")) pending): it runs and saves but does not merge \
        history, or does not store its position after merging.
        """
    }

    /// `author-mismatch`.
    static func authorMismatch(_ a: ActorReport, record: MergeRecord) -> Message {
        let closest: Message
        if let best = a.similarAuthors.first {
            closest =
                """
                the closest author is \(best.name) \
                (\(best.distance == 0 ? "it differs only in case" : plural(best.distance, "character") + " apart"))
                """
                + (a.similarAuthors.count > 1
                    ? ", then \(a.similarAuthors.dropFirst().prefix(2).map(\.name).joined(separator: ", "))" : "")
                + ". If it is the same target, save the position under the name it writes with (transactionAuthor)"
        } else {
            closest = "no author has a name like it. If this target only reads, declare it with \(Control.declareActor)"
        }
        return """
            \(a.name) has a merge position (\(record.source)) but no transaction has author \(a.name); \
            \(closest).
            """
    }

    /// `cascade-orphans`.
    static func cascadeOrphans(_ o: CascadeOrphans) -> Message {
        var kinds: [String] = []
        for owner in o.owners where owner.dangling > 0 {
            var text =
                """
                \(owner.dangling) point (\(owner.inverse)) at \(owner.parentEntity) objects that no longer \
                exist (\(cascadeList(owner.danglingSample, of: owner.dangling)))
                """
            if let span = owner.danglingParentDeletes {
                text += "; history deleted \(plural(span.deletes, "of those parent")) \(cascadeRange(span))"
            }
            kinds.append(text)
        }
        let relationships = o.owners.map { "\($0.parentEntity).\($0.relationship)" }
        if o.detached > 0 {
            var text = "\(o.detached) have no parent at all (\(cascadeList(o.detachedSample, of: o.detached)))"
            if let span = o.parentDeletes {
                text +=
                    """
                    ; history recorded \(plural(span.deletes, "delete")) of \
                    \(Set(o.owners.map(\.parentEntity)).sorted().joined(separator: " or ")) objects \
                    \(cascadeRange(span))
                    """
            }
            kinds.append(text)
        }
        return """
            \(o.childEntity): \(o.rows) of its \(o.childRows) rows are left without their parent, although \
            \(relationships.joined(separator: ", ")) \(relationships.count == 1 ? "deletes" : "delete") them \
            in cascade: \(kinds.joined(separator: "; ")). Core Data never reaches them through a parent again \
            and nothing deletes them: \(o.rows) rows of \(o.table) kept for nothing. Delete them, and look \
            for the delete that skipped the cascade (a batch delete, SQL, a relationship made optional).
            """
    }

    /// `cloudkit-export-behind`.
    static func cloudKitExportBehind(exporter: ActorReport, age: String, config: CheckConfig) -> Message {
        """
        CloudKit has \(plural(exporter.pending.count, "transaction")) to export\(age) (thresholds: \
        \(plural(config.maxExportPendingTransactions, "transaction")), \
        \(span(config.maxLagDays * 86400, exact: true))). The app has not run with a network and an \
        iCloud account since, or exports fail: see the recent events of \(Control.showCloudKit).
        """
    }

    /// `cloudkit-export-failing`.
    static func cloudKitExportFailing(exporter: ActorReport, error: String, when: String) -> Message {
        """
        CloudKit's last export\(when) failed with \(error), and none succeeded after it; \
        \(plural(exporter.pending.count, "transaction")) of the app's authors wait to be exported. The \
        mirror is stuck until an export succeeds: see the recent events of \(Control.showCloudKit) and \
        fix what the error names.
        """
    }

    /// `cloudkit-purge`.
    static func cloudKitPurge(strategy: CleanerStrategy, preview: PurgePreview) -> Message {
        """
        The \(strategy.title) cleaner would delete \(plural(preview.cloudKitTransactions, "transaction")) \
        written by NSCloudKitMirroringDelegate. Apple advises against purging history of a store mirrored \
        with CloudKit: it can make the mirror re-sync or miss changes. Narrow the purge to your own \
        authors, or do not purge.
        """
    }

    /// `cloudkit-records-pending`.
    static func cloudKitRecordsPending(
        upload: Int, delete: Int, mirrored: Int, entities: [MirroredRecords.EntityCounts]
    ) -> Message {
        let named = entities.prefix(5).map {
            """
            \($0.entityName ?? $0.entityNumber.map { "Z_ENT \($0)" } ?? "no entity"): \
            \(($0.needsUpload ?? 0) + ($0.needsCloudDelete ?? 0))
            """
        }
        let more = entities.count > 5 ? " and \(entities.count - 5) more" : ""
        return """
            \(upload) of \(mirrored) mirrored records await upload and \(delete) await deletion in \
            iCloud (\(named.joined(separator: ", "))\(more)). They go when the app next exports; many that \
            stay are a sign exports fail.
            """
    }

    /// `columns-mismatch`.
    static func columnsMismatch(count: Int, entities: Set<String>, first: Int64?) -> Message {
        """
        \(count) updates of \(entities.sorted().joined(separator: ", ")) have ZCOLUMNS that do not fit \
        the model (first: change \(first ?? 0)). The model given or cached is not the one that wrote \
        them; decode with the right one (\(Control.model)).
        """
    }

    /// `dormant-mirror`.
    static func dormantMirror(since: String, transactionsSince: Int, seconds: Double) -> Message {
        """
        The store is mirrored with CloudKit (it holds the mirror's metadata), but nothing shows mirroring \
        ran \(since): \(plural(transactionsSince, "transaction")) of other authors over \
        \(span(seconds)). The store may have been opened without CloudKit (cloudKitContainerOptions off), \
        or the device kept out of iCloud (signed out, offline): those changes are not in iCloud until \
        mirroring runs again and exports them, and a purge of that time (a 7-day cleaner) deletes history \
        the exporter still needs, forcing a full re-sync. Open the store with mirroring on, or remove the \
        mirror's metadata if the app stopped syncing on purpose.
        """
    }

    /// `free-pages`.
    static func freePages(free: Int64, pages: Int64, share: Double) -> Message {
        """
        \(free) of \(pages) pages (\((share * 100).wholeDescription)%) are free, \
        probably after a purge: the file only shrinks after VACUUM (\(Control.purgeAndVacuum), or VACUUM \
        in sqlite3 with the app closed).
        """
    }

    /// `history-old`.
    static func historyOld(ageDays: Double, threshold: Double, statistics: HistoryStatistics) -> Message {
        """
        History is old: the oldest transaction is \(days(ageDays)) older than the newest (threshold \
        \(days(threshold))). \(PurgeEvidence.sentence(statistics))
        """
    }

    /// `missing-attribution`.
    static func missingAttribution(noAuthor: Int, noContext: Int, total: Int) -> Message {
        """
        \(noAuthor) of \(total) transactions have no author and \(noContext) no context name. Set \
        transactionAuthor and name on every context that saves, so each actor can skip its own changes \
        and you can see who wrote what.
        """
    }

    /// `no-merge-position`.
    static func noMergePosition(_ s: HistoryStatistics) -> Message {
        """
        No merge position was found (\(Control.defaults), \(Control.token) or \(Control.groupContainer) \
        give where the app keeps one) and history was never purged: an app that keeps its token only in \
        memory fetches all \(plural(s.transactionCount, "transaction")) and \
        \(plural(s.changeCount, "change")) at every launch. Save the last transaction's token (archived, \
        in the App Group's defaults or a file) after each merge, fetch after it, and purge what every \
        process has merged.
        """
    }

    /// `orphan-changes`.
    static func orphanChanges(_ n: Int) -> Message {
        """
        \(n) ACHANGE rows belong to no transaction: something deleted ATRANSACTION rows without their \
        changes. Core Data never returns them; purge them with their transactions or restore a backup.
        """
    }

    /// `position-after-newest`.
    static func positionAfterNewest(_ a: ActorReport, date: Double, newest: Double) -> Message {
        """
        \(a.name)'s position is \(span(date - newest)) after the newest transaction and names none: it \
        was most likely set to the time the app started (as HalloApp does) or to the clock after a merge, \
        not to a merged transaction, so whatever was written between \(a.name)'s last merge and that \
        moment is never merged. Write the position from the newest merged transaction's timestamp (or \
        keep its token); if the defaults were copied later than the store, copy both at once.
        """
    }

    /// `spotlight-reader`.
    static func spotlightReader(_ reader: HiddenReader) -> Message {
        """
        Spotlight: \(reader.explanation). Neither the defaults nor a token file shows how far it has \
        read, so no cleaner here can wait for it: when a purge deletes history it has not read, \
        \(reader.purgeEffect). Keep a purge well behind the newest history, or let the delegate catch up \
        (its index is up to date) before purging.
        """
    }

    /// `stale-actor`.
    static func staleActor(_ a: ActorReport, days: Double, clock: LagClock) -> Message {
        let remove: Message =
            a.records.first?.keyFormat != nil
            ? "delete its key (\(Control.removePositionFromDefaults))" : "delete its saved token"
        let when =
            clock == .newestTransaction
            ? "\(HistoryReading.days(days)) before the newest transaction" : "\(HistoryReading.days(days)) ago"
        return """
            \(a.name) last merged \(when), has \(plural(a.pending.count, "transaction")) to merge and sets \
            the cleaners' cut-off: no history after that can be purged. If this target was removed, \(remove).
            """
    }

    /// `two-mirrors`.
    static func twoMirrors(_ writers: [MirroringWriter]) -> Message {
        let processes = writers.count
        let list = writers.map { w in
            """
            \(w.bundleID ?? "no bundle ID") (\(w.processID ?? "no process")): \
            \(plural(w.transactions, "transaction")) 
            """
                + (w.firstTransaction == w.lastTransaction
                    ? "#\(w.firstTransaction)" : "#\(w.firstTransaction)–#\(w.lastTransaction)")
        }
        return """
            CloudKit mirroring wrote this store's history from \(processes) processes at the same time: \
            \(list.joined(separator: "; ")). Only one process may mirror a store: two exporters and importers \
            work against each other (duplicates, lost or repeated changes). Open the store with \
            cloudKitContainerOptions set to nil everywhere but the app, and let the extensions use a plain \
            container.
            """
    }

    /// `unknown-entity`.
    static func unknownEntities(total: Int, entityNumbers: [Int64]) -> Message {
        """
        \(total) changes name entity numbers \
        \(entityNumbers.map(String.init).joined(separator: ", ")) that Z_PRIMARYKEY does not \
        list (a migration that did not rewrite history?). They cannot be decoded.
        """
    }

    /// `unknown-entity`.
    static func undecodableEntity(_ unnumbered: Int) -> Message {
        """
        \(unnumbered) change\(unnumbered == 1 ? " has" : "s have") a ZENTITY that is not an integer \
        (NULL, text, a real or a blob): the store was edited or damaged. They cannot be decoded.
        """
    }

    /// `wal-missing`.
    static func shmWithoutWAL(_ files: StoreFiles) -> Message {
        """
        \(files.path)-shm is present but \(files.path)-wal is not: the newest transactions were \
        probably left behind when the store was copied. Copy the store with its -wal and -shm files.
        """
    }

    /// `wal-missing`.
    static func transactionsMissing(mark: Int64, last: Int64) -> Message {
        """
        Z_PRIMARYKEY has handed out transaction numbers up to \(mark) but the newest transaction is \
        \(last) and there is no -wal: the newest \(mark - last) transactions were either purged or \
        left in a -wal that was not copied.
        """
    }

    /// `wrong-type`.
    static func wrongType(list: String, reading: String) -> Message {
        """
        Text or blobs where Core Data writes numbers: \(list). Core Data never writes these; the store \
        was edited or damaged. cdhist reads those values \(reading) (see the warnings of \
        \(Control.exportHistory)).
        """
    }

    /// `migration-truncation`: `broken` names each actor the truncation breaks, with its status.
    static func migrationTruncation(
        entities: [String], preview: PurgePreview, newest: Int64, broken: [String], actorsGiven: Bool
    ) -> Message {
        let breaks: Message =
            broken.isEmpty
            ? (!actorsGiven
                ? """
                 No actor was given (\(Control.defaults), \(Control.token), \(Control.groupContainer)) to say \
                whom it breaks.
                """
                : " It breaks none of the actors given.")
            : """
             It breaks \(broken.joined(separator: ", ")): each fails with 134301 \
            (SwiftDataError.historyTokenExpired in SwiftData) on its next fetch.
            """
        return
            """
            The next model removes \(entities.joined(separator: ", ")), which history still names: migrating to \
            it truncates history, 
            """
                + """
                deleting \(plural(preview.transactionCount, "transaction")) (up to #\(newest)) and \
                \(plural(preview.changeCount, "change")).
                """
                + breaks
                    + """
                     Before shipping: keep the entities in the model until every actor has merged past #\(newest) and \
                    history before it is purged, or reset the actors' tokens after the migration.
                    """
    }

    /// `mass-delete`.
    static func massDelete(_ b: DeleteBurst) -> Message {
        Message(
            b.sentence
                + """
                 If nobody asked for that, look at what ran then: an app that finds its store empty or \
                unreadable must not take that for the user's deletes (and never export them to iCloud).
                """
        )
    }

    /// `wal-damaged`.
    static func walDamaged(path: String, hidden: WALLog.HiddenFrames) -> Message {
        "\(path)-wal is damaged: \(hidden.sentence), and neither the app nor this check sees what "
            + """
            they saved. \(Control.listSaves) lists the saves it reads; keep a copy of the -wal before the app \
            opens the store again.
            """
    }

    /// The first object IDs, and how many more.
    private static func cascadeList(_ sample: [ObjectReference], of total: Int) -> String {
        sample.map(\.description).joined(separator: ", ") + (total > sample.count ? " …" : "")
    }

    /// "in #12 at 2025-03-03 09:00:00Z", or "from #12 (…) to #40 (…)".
    private static func cascadeRange(_ span: DeleteSpan) -> String {
        func at(_ number: Int64, _ time: Double?) -> String { "#\(number)" + (time.map { " (\(moment($0)))" } ?? "") }
        return span.firstTransaction == span.lastTransaction
            ? "in " + at(span.firstTransaction, span.first)
            : "from " + at(span.firstTransaction, span.first) + " to " + at(span.lastTransaction, span.last)
    }
}
