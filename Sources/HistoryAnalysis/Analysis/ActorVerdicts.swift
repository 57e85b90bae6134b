import HistoryReading

/// An actor's status, with what it means and what to do.
struct ActorVerdict {
    var status: ActorStatus
    var explanation: String
    var advice: Message
}

/// What the merge-state analysis says of each actor, in one place: every verdict's explanation
/// and advice, made from what the analysis found. ``MergeStateAnalyzer`` decides which applies.
enum ActorVerdicts {
    // MARK: An app's actor

    /// A batch actor (`--batch-actor`) with no position.
    static func batchActor(authored: Int) -> ActorVerdict {
        ActorVerdict(
            status: .writesOnly,
            explanation: "batch actor: writes history (\(plural(authored, "transaction"))) and does not merge",
            advice: "nothing to do; it is left out of purge cut-offs")
    }

    /// A declared actor with no position.
    static func declaredWithoutPosition(pending: Int) -> ActorVerdict {
        ActorVerdict(
            status: .neverMerged,
            explanation: "has no recorded position: it has never merged, or its key was reset after a purge",
            advice: """
                it will fetch all \(plural(pending, "transaction")) by others on its next run; if \
                this target no longer exists, remove it from the app's actor list so it stops holding back \
                purges
                """)
    }

    /// A recorded position that cannot be read.
    static func unreadablePosition(_ why: String) -> ActorVerdict {
        ActorVerdict(
            status: .corruptToken, explanation: "its recorded position cannot be read: \(why)",
            advice: "delete this value so the app starts from scratch (it will refetch history); expect a full re-merge"
        )
    }

    /// A token of another store.
    static func foreignToken(_ token: HistoryToken, storeUUID: String) -> ActorVerdict {
        ActorVerdict(
            status: .foreignToken,
            explanation: """
                its token is for store \(token.transactionNumbers.keys.sorted().joined(separator: ", ")), not \
                this store (\(storeUUID)): Core Data fails with error 134501
                """,
            advice: "the store was replaced or restored: delete the saved token so the actor refetches from the start")
    }

    /// A token of transaction `n`, later than the save the store is read at (`later` says so).
    static func tokenLaterThanSave(_ n: Int64, later: String) -> ActorVerdict {
        ActorVerdict(
            status: .upToDate, explanation: "its token (transaction #\(n)) \(later)",
            advice: "nothing to do: judge its position against the store as it is, not as after a save")
    }

    /// A token of a transaction that is not in the store (`missing` says why).
    static func expiredToken(missing: String) -> ActorVerdict {
        ActorVerdict(
            status: .expired,
            explanation: """
                its token \(missing): Core Data fails with error 134301 (history \
                token expired; in SwiftData, SwiftDataError.historyTokenExpired)
                """,
            advice: """
                reset its token (delete the saved token) so it refetches, and purge only before the oldest \
                actor's position
                """)
    }

    /// A date before the oldest remaining transaction, `oldest`, after a purge.
    static func missedChanges(oldest: Int64) -> ActorVerdict {
        ActorVerdict(
            status: .missedChanges,
            explanation: """
                its last merge is older than the oldest remaining transaction (#\(oldest)): history it \
                had not merged was purged, and Core Data skips it silently
                """,
            advice: """
                rebuild this actor's state from the store (a full refetch), and make the cleaner purge only \
                before the oldest actor's date
                """)
    }

    /// A date under a name no transaction has as its author; `similar`: authors named like it.
    static func unknownActor(_ name: String, similar: [String], pending: Int) -> ActorVerdict {
        let hint =
            similar.isEmpty
            ? "no author has a name like it"
            : """
            did you mean \
            \(similar.prefix(3).joined(separator: ", "))\(similar.count > 3 ? " or \(similar.count - 3) more" : "")?
            """
        return ActorVerdict(
            status: .unknownActor,
            explanation: """
                has merge state but no transaction has author '\(name)' (\(hint)); \
                \(plural(pending, "transaction")) by others after its date
                """,
            advice: """
                if it only reads, declare it with \(Control.declareActor); otherwise make it set \
                transactionAuthor to the name it saves its position under
                """)
    }

    /// Nothing to merge; `uncertain` transactions within the second after a whole-second date.
    static func upToDate(uncertain: Int) -> ActorVerdict {
        ActorVerdict(
            status: .upToDate,
            explanation: uncertain == 0
                ? "has merged everything others wrote"
                : """
                has merged everything others wrote up to its date; its date is kept in whole seconds, so \
                \(plural(uncertain, "transaction")) within the second after it may not be merged
                """,
            advice: "nothing to do")
    }

    /// Transactions by others to merge (`uncertain` of them may be merged already), `behind`
    /// seconds by `clock`.
    static func behind(_ pending: PendingSummary, uncertain: Int, behind: Double?, clock: LagClock) -> ActorVerdict {
        var explanation =
            uncertain == 0
            ? "has \(plural(pending.count, "transaction")) by others to merge"
            : """
            has \(pending.count)–\(pending.count + uncertain) transactions by others to merge: its date \
            is kept in whole seconds, so \(uncertain) within the second after it may be merged already
            """
        let advice: Message
        if pending.ownAfterOthers > 0 {
            // It ran again, saved, and left its position where it was.
            explanation +=
                """
                ; it wrote \(plural(pending.ownCount, "transaction")) after its position, \
                \(pending.ownAfterOthers) of them after others' it has not merged: it saves but does not \
                merge, or does not store its position
                """
            advice =
                """
                make it merge history each time it runs (fetch the transactions after its position, merge \
                them, then store the new position), not only save
                """
        } else if let behind, behind > CleanerInput.week {
            advice =
                clock == .newestTransaction
                ? """
                \(clock.behind(behind)): it has not merged since, and holds back purges; if this target no \
                longer runs, remove its key
                """
                : """
                has not merged for \(days(behind / 86400)) and holds back purges; if this target no longer \
                runs, remove its key
                """
        } else {
            advice = "it merges them when it next runs; nothing to do"
        }
        return ActorVerdict(status: .behind, explanation: explanation, advice: advice)
    }

    // MARK: CloudKit's exporter

    /// No export position in the store.
    static func exporterWithoutPosition(pending: Int) -> ActorVerdict {
        ActorVerdict(
            status: .neverMerged,
            explanation: """
                CloudKit mirroring keeps no export position in the store: it has not exported yet, or its state \
                was reset
                """,
            advice: """
                on its next export it reads all remaining history (\(plural(pending, "transaction")) to \
                export); if the app has synced before, expect it to re-upload its data
                """)
    }

    /// An export position that cannot be read; `everyRecord`: what a reset re-uploads.
    static func exporterUnreadable(_ why: String, everyRecord: String) -> ActorVerdict {
        ActorVerdict(
            status: .corruptToken, explanation: "its export position cannot be read: \(why)",
            advice: """
                if this store is a copy, copy it again with its -wal and -shm; otherwise CloudKit cannot resume \
                from it: expect the mirror to reset and re-upload \(everyRecord)
                """)
    }

    /// An export token of another store.
    static func exporterForeignToken(_ token: HistoryToken, storeUUID: String, everyRecord: String) -> ActorVerdict {
        ActorVerdict(
            status: .foreignToken,
            explanation: """
                its export token is for store \(token.transactionNumbers.keys.sorted().joined(separator: ", ")), \
                not this store (\(storeUUID)): the store was replaced or restored
                """,
            advice: "CloudKit cannot resume from it: expect the mirror to reset and re-upload \(everyRecord)")
    }

    /// An export position of transaction `n`, later than the save the store is read at.
    static func exporterLaterThanSave(_ n: Int64, later: String) -> ActorVerdict {
        ActorVerdict(
            status: .upToDate, explanation: "its export position (transaction #\(n)) \(later)",
            advice: "nothing to do: judge its position against the store as it is, not as after a save")
    }

    /// An export position of a transaction that is not in the store.
    static func exporterExpired(missing: String, everyRecord: String) -> ActorVerdict {
        ActorVerdict(
            status: .expired,
            explanation: """
                its export position \(missing): on its next export the mirror finds its \
                token expired, resets (reason: history expired) and re-uploads \(everyRecord)
                """,
            advice: """
                nothing in the store undoes it: let the reset run with a good network; from now on purge only \
                transactions CloudKit has exported, or do not purge a mirrored store
                """)
    }

    /// Nothing to export.
    static func exporterUpToDate(_ pending: PendingSummary) -> ActorVerdict {
        ActorVerdict(
            status: .upToDate, explanation: "has exported everything the app's authors wrote" + own(pending),
            advice: "nothing to do")
    }

    /// Transactions to export, and the newest export failed with none after it.
    static func exporterFailing(_ pending: PendingSummary, failed: MirroringEvent) -> ActorVerdict {
        let when = failed.started.map { " (\(moment($0)))" } ?? ""
        return ActorVerdict(
            status: .behind,
            explanation: "has \(plural(pending.count, "transaction")) to export\(own(pending)); its last export\(when) "
                + "failed with " + CloudKitErrorCode.text(domain: failed.errorDomain, code: failed.errorCode)
                + " and none succeeded after it",
            advice: """
                fix what the error names (\(Control.showCloudKit) shows the recent events); the mirror exports \
                them once an export succeeds
                """)
    }

    /// Transactions to export, `behind` seconds by `clock`.
    static func exporterBehind(_ pending: PendingSummary, behind: Double?, clock: LagClock) -> ActorVerdict {
        ActorVerdict(
            status: .behind, explanation: "has \(plural(pending.count, "transaction")) to export\(own(pending))",
            advice: behind.map { $0 > 86400 } == true
                ? (clock == .newestTransaction
                    ? """
                    \(clock.behind(behind ?? 0)): it has not exported since; check the device's iCloud \
                    account and the mirror's recent events
                    """
                    : """
                    it has not exported for \(days((behind ?? 0) / 86400)): check the device's iCloud account \
                    and the mirror's recent events
                    """)
                : "it exports them when the app next runs with a network and an iCloud account; nothing to do")
    }

    /// What the exporter leaves out of its count: CloudKit's own transactions.
    private static func own(_ pending: PendingSummary) -> String {
        pending.ownCount > 0
            ? " (and \(pending.ownCount) written by CloudKit itself, which it does not export)" : ""
    }

    // MARK: Parts of verdicts

    /// How a position of transaction `n` is later than save `at` of the store read, whose newest
    /// transaction then was `history`'s last.
    static func laterThanSave(_ at: SavePoint, history: ClosedRange<Int64>?) -> String {
        """
        is later than the newest transaction at save \(at.save) of \(at.of) \
        (\(history.map { "#\($0.upperBound)" } ?? "none")), 
        """
            + """
            as which the store is read: the merge state is of a later time, and had merged everything the store \
            held then
            """
    }

    /// Why transaction `n`, which a token names, is not in the store: purged, never
    /// there (beyond the newest: an older copy of the store), or a gap.
    static func missing(_ n: Int64, history: ClosedRange<Int64>?) -> String {
        guard let history else { return "(transaction #\(n)) is gone: the store has no transactions" }
        if n > history.upperBound {
            return
                """
                (transaction #\(n)) is beyond the newest transaction (#\(history.upperBound)): the store was \
                restored from an older copy or replaced
                """
        }
        if n < history.lowerBound {
            return "(transaction #\(n)) was purged (the oldest remaining is #\(history.lowerBound))"
        }
        return "(transaction #\(n)) is gone from the middle of the history"
    }
}
