import Foundation
import HistoryKit

/// Presents actor reports and cleaner cut-offs.
struct MergeStatePresenter {
    let time: TimeFormatter
    let now: Double
    /// For a command of an interactive session: advice names the session's `defaults` command.
    var inSession = false
    /// Every writer named, and each cleaner strategy on its own row with its rule.
    var all = false

    func document(_ report: MergeStateReport, store: HistoryStore, sources: [MergeSource]) -> Document {
        var fields: [(String, String)] = [
            ("Store", "\(store.path) (\(store.storeUUID))"),
            ("As of", time.display(report.now)),
        ]
        if let newest = newestText(report) { fields.append(("Newest", newest)) }
        for s in sources {
            var text = "\(s.kind), \(plural(s.positions, "position"))"
            if s.ignoredKeys > 0 { text += ", \(plural(s.ignoredKeys, "other key")) ignored" }
            if let prefix = s.inferredKeyPrefix {
                text += ", keys \(prefix)<actor> (the prefix inferred from the authors; --key-prefix sets it)"
            }
            if !s.otherStoreKeys.isEmpty {
                let (shown, more) = ListSummary.limited(s.otherStoreKeys, to: ListSummary.inline)
                text +=
                    ", for other stores: \(shown.joined(separator: ", "))"
                    + (more > 0 ? " " + ListSummary.more(more) : "")
            }
            fields.append(("Source", "\(Self.beside(store.path, s.path)): \(text)"))
        }
        if sources.isEmpty { fields.append(("Source", "none (give --defaults, --token or --group-container)")) }
        let actorRows = report.actors.map { a -> [Cell] in
            [
                Cell(a.name), Cell(a.status.rawValue, Self.style(a.status)), Cell(merged(a)),
                Cell(pendingText(a, report: report)),
                Cell(
                    "\(a.explanation); \(a.advice.text)"
                        + (Self.fix(a, store: store.path) == nil ? "" : " (the command is under the table)")),
            ]
        }
        var sections: [Document.Section] = [
            .fields(title: nil, fields),
            report.actors.isEmpty
                ? .note(
                    """
                    No actor: no merge position was given or found, and none is declared. Give --defaults, \
                    --token or --group-container
                    """
                        + (inSession ? " (in this session, defaults PLIST attaches a plist)" : "")
                        + " (a store mirrored with CloudKit has its exporter's own), or declare actors with --actor.")
                : .table(
                    title: "Actors",
                    columns: [
                        Column("Actor", fit: .wrap(min: 10)), Column("Status"),
                        Column("Merged up to", fit: .wrap(min: 14)),
                        Column("Pending", fit: .wrap(min: 16)), Column("Why, and what to do", fit: .below),
                    ], rows: actorRows),
        ]
        let fixes = report.actors.compactMap { Self.fix($0, store: store.path) }
        if !fixes.isEmpty {
            let previews =
                fixes.contains { $0.contains("repair-defaults") } ? " (repair-defaults previews without --execute)" : ""
            sections.append(
                .commands(
                    title: "To reset each broken actor so that it fetches history from the start\(previews):", fixes))
        }
        if let writers = writersSummary(report.writers) { sections.append(.note(writers)) }
        sections += report.hiddenReaders.map { .note(HiddenReaderText.actorNote($0)) }
        sections += CleanerTable(time: time, all: all).sections(report)
        return Document(kind: "actors", json: json(report, sources: sources, store: store.path), sections: sections)
    }

    /// `path` by its file name when it sits beside the store (the store's line names the folder), else
    /// whole: the folders of an extraction can take a line of their own.
    static func beside(_ store: String, _ path: String) -> String {
        let file = URL(fileURLWithPath: path).standardizedFileURL
        let folder = URL(fileURLWithPath: store).standardizedFileURL.deletingLastPathComponent()
        return file.deletingLastPathComponent() == folder ? file.lastPathComponent : path
    }

    /// The command that resets a broken actor's position, so that it fetches history from the
    /// start: its key removed from the defaults plist that holds it, or its token file deleted.
    static func fix(_ a: ActorReport, store: String) -> [String]? {
        guard a.status.isBroken, a.kind == .app, let record = a.records.first else { return nil }
        guard record.keyFormat != nil else { return ["rm", record.source] }
        // A defaults entry's source is `<plist> [<key>]`.
        let plist =
            record.source.range(of: " [", options: .backwards).map { String(record.source[..<$0.lowerBound]) }
            ?? record.source
        var prefix: [String] = []
        if case .customPrefix(let p)? = record.keyFormat { prefix = ["--key-prefix", p] }
        return ["cdhist", "repair-defaults", plist, "--actor", record.actor] + prefix + [
            "--remove", "--store", store, "--execute",
        ]
    }

    /// One line for every author without a merge position: the busiest by name, a
    /// framework's authors as one family, and how to make one of them an actor.
    func writersSummary(_ writers: [WriterSummary]) -> String? {
        let named = writers.filter { $0.author != nil }
        let anonymous = writers.first { $0.author == nil }?.transactions ?? 0
        let without =
            anonymous == 0
            ? ""
            : """
            \(anonymous) transaction\(anonymous == 1 ? " has" : "s have") no author: set transactionAuthor on \
            every context that saves.
            """
        guard !named.isEmpty else { return without.isEmpty ? nil : without }
        let groups = ListSummary.grouped(named, author: \.author, families: all ? [] : Set(AuthorFamily.allCases))
        let counts = ListSummary.counts(groups, limit: all ? nil : ListSummary.inline, count: \.transactions)
        return "\(named.count) author\(named.count == 1 ? " writes" : "s write") without a merge position"
            + " (transactions: \(counts)); "
            + "if one of them merges, give its --key-prefix or --token."
            + (without.isEmpty ? "" : " " + without)
    }

    /// Green when fine, yellow when it needs attention, red when Core Data fails or loses changes.
    static func style(_ status: ActorStatus) -> Style? {
        switch status {
        case .upToDate, .writesOnly: return .green
        case .behind, .neverMerged, .unknownActor: return .yellow
        case .expired, .missedChanges, .foreignToken, .corruptToken: return .red
        }
    }

    /// The last transaction an actor merged, and what kind of position says so.
    func merged(_ a: ActorReport) -> String {
        guard let record = a.records.first else { return "-" }
        switch record.position {
        case .unreadable: return "unreadable (\(record.source))"
        case .token(let token):
            let kind = a.kind == .cloudKit ? "export token" : "token"
            guard let n = a.tokenNumber else { return "\(kind) \(token)" }
            // Not in the store: purged, or after its newest (read at a save, or restored from an older copy).
            let missing = a.status == .upToDate ? "later" : "gone"
            return a.lastMerged.map { "#\($0.number) \(time.display($0.timestamp)) (\(kind))" }
                ?? "#\(n), \(missing) (\(kind))"
        case .date(let d, _):
            let tx = a.lastMerged.map { "#\($0.number) " } ?? "before every remaining transaction, "
            return "\(tx)\(time.display(d)) (date)"
        }
    }

    /// The store's newest transaction, how old it is, and what lags are measured to.
    private func newestText(_ report: MergeStateReport) -> String? {
        guard let number = report.newestNumber else { return nil }
        let when = report.newestTimestamp.map { " at \(time.display($0)), \(Self.age(report.now - $0)) old" } ?? ""
        // By default actors are judged by the store's own time (how far behind the newest each is): a copy is not stale
        // for its age.
        switch report.lagClock {
        case .newestTransaction: return "#\(number)\(when)"
        case .given: return "#\(number)\(when); actors' lags are measured to --now"
        case .wallClock:
            return "#\(number)\(when); actors' lags are measured to now: another process has the store open"
        }
    }

    private func pendingText(_ a: ActorReport, report: MergeStateReport) -> String {
        let clock = report.lagClock
        if a.status == .writesOnly || a.status == .corruptToken || a.status == .foreignToken { return "-" }
        if a.pending.count == 0, let most = a.pending.countAtMost {
            return "0–\(most) (within the second after its date)"
        }
        guard a.pending.count > 0 else {
            return a.kind == .cloudKit && a.pending.ownCount > 0
                ? "none (\(a.pending.ownCount) by CloudKit itself)" : "none"
        }
        let groups = ListSummary.grouped(
            a.pending.byAuthor, author: \.author, families: all ? [] : Set(AuthorFamily.allCases)
        )
        .map { g in ListSummary.Group(label: g.family?.title ?? g.label, family: g.family, members: g.members) }
        let parts = ListSummary.counts(groups, limit: all ? nil : 3, count: \.count)
        // By the store's own time, how long before the newest transaction its position lies; by a clock, how old the
        // oldest is.
        let age =
            report.behind(a).map {
                clock == .newestTransaction ? ", \(Self.age($0)) behind the newest" : ", oldest \(Self.age($0)) old"
            } ?? ""
        let own =
            a.kind == .cloudKit && a.pending.ownCount > 0
            ? "; and \(a.pending.ownCount) by CloudKit itself, not exported" : ""
        let count = a.pending.countAtMost.map { "\(a.pending.count)–\($0)" } ?? "\(a.pending.count)"
        return "\(count) (\(parts))\(age)\(own)"
    }

    /// `3d 4h`, `5h 12m`, `40m`, `12s`.
    static func age(_ seconds: Double) -> String {
        // A timestamp of -1e300 (a damaged store) makes an age no Int holds.
        guard seconds < 1e15 else { return "\(seconds.wholeDescription) s" }
        // Under a second (an actor a moment behind the newest transaction): to the millisecond.
        if seconds < 1 { return String(format: "%.3fs", max(0, seconds)) }
        let s = Int(seconds)
        if s >= 86400 { return "\(s / 86400)d \((s % 86400) / 3600)h" }
        if s >= 3600 { return "\(s / 3600)h \((s % 3600) / 60)m" }
        if s >= 60 { return "\(s / 60)m" }
        return "\(s)s"
    }

    private func json(_ report: MergeStateReport, sources: [MergeSource], store: String) -> [(String, JSONValue)] {
        [
            ("storeID", .string(report.storeUUID)),
            ("now", .optional(time.iso(report.now))),
            ("cocoaNow", .double(report.now)),
            ("lagClock", .string(report.lagClock.rawValue)),
            ("lagTo", .optional(time.iso(report.lagTo))),
            ("newestTransaction", .optional(report.newestNumber)),
            ("newestTimestamp", report.newestTimestamp.map { .optional(time.iso($0)) } ?? .null),
            (
                "sources",
                .array(
                    sources.map { s in
                        .object([
                            ("path", .string(s.path)), ("kind", .string(s.kind)),
                            ("positions", .int(Int64(s.positions))),
                            ("ignoredKeys", .int(Int64(s.ignoredKeys))),
                            ("otherStoreKeys", .array(s.otherStoreKeys.map { .string($0) })),
                            ("inferredKeyPrefix", .optional(s.inferredKeyPrefix)),
                        ])
                    })
            ),
            ("actors", .array(report.actors.map { actorJSON($0, store: store) })),
            ("hiddenReaders", .array(report.hiddenReaders.map(HiddenReaderText.json))),
            (
                "writers",
                .array(
                    report.writers.map { w in
                        .object([
                            ("author", .optional(w.author)), ("family", .optional(w.family?.rawValue)),
                            ("transactions", .int(Int64(w.transactions))),
                            ("firstTransaction", .int(w.firstNumber)), ("lastTransaction", .int(w.lastNumber)),
                            ("firstTimestamp", .optional(w.firstTimestamp.flatMap { time.iso($0) })),
                            ("lastTimestamp", .optional(w.lastTimestamp.flatMap { time.iso($0) })),
                        ])
                    })
            ),
            (
                "cleaners",
                .array(
                    report.cleaners.map { e -> JSONValue in
                        let c = e.cutoff
                        return .object([
                            ("strategy", .string(c.strategy.rawValue)),
                            ("title", .string(c.strategy.title)),
                            ("source", .string(c.strategy.source)),
                            ("cutoff", .optional(c.cutoff.flatMap { time.iso($0) })),
                            ("cocoaCutoff", .optional(c.cutoff)),
                            ("allDates", .bool(c.allDates)),
                            ("reason", .string(c.reason)),
                            ("heldBackBy", .optional(c.heldBackBy)),
                            ("authorFilter", c.authorFilter.map { .array($0.map { .string($0) }) } ?? .null),
                            ("resetsKeysAfterPurge", .bool(c.resetsKeysAfterPurge)),
                            ("notes", .array(c.notes.map { .string($0) })),
                            ("transactionsToDelete", c.purges ? .int(Int64(e.transactionsToDelete)) : .null),
                            (
                                "transactionsToDeleteAtMost",
                                e.transactionsToDeleteAtMost.map { .int(Int64($0)) } ?? .null
                            ),
                            ("breaks", .array(e.breaks.map(PurgePresenter.json))),
                        ])
                    })
            ),
        ]
    }

    /// An actor as JSON; `store` names the store in its fix (the exporter has none).
    func actorJSON(_ a: ActorReport, store: String? = nil) -> JSONValue {
        .object(
            [
                ("actor", .string(a.name)),
                ("kind", .string(a.kind.rawValue)),
                ("status", .string(a.status.rawValue)),
                ("declared", .bool(a.isDeclared)),
                ("batch", .bool(a.isBatch)),
                ("authoredTransactions", .int(Int64(a.authoredCount))),
                ("positions", .array(a.records.map(positionJSON))),
                ("lastMergedTransaction", .optional(a.lastMerged?.number)),
                ("lastMergedTimestamp", .optional(a.lastMerged.flatMap { time.iso($0.timestamp) })),
                ("tokenTransactionNumber", .optional(a.tokenNumber)),
                ("pendingCount", .int(Int64(a.pending.count))),
            ] + (a.pending.countAtMost.map { [("pendingCountAtMost", JSONValue.int(Int64($0)))] } ?? []) + [
                ("ownTransactionsAfterPosition", .int(Int64(a.pending.ownCount))),
                ("ownTransactionsAfterOthers", .int(Int64(a.pending.ownAfterOthers))),
                ("mirroredRecords", .optional(a.mirroredRecordCount.map(Int64.init))),
                (
                    "pendingByAuthor",
                    .array(
                        a.pending.byAuthor.map {
                            .object([("author", .optional($0.author)), ("count", .int(Int64($0.count)))])
                        })
                ),
                ("oldestPendingTransaction", .optional(a.pending.oldestNumber)),
                ("oldestPendingTimestamp", .optional(a.pending.oldestTimestamp.flatMap { time.iso($0) })),
                ("lagSeconds", .optional(a.lag)), ("positionAgeSeconds", .optional(a.positionAge)),
                ("explanation", .string(a.explanation)),
                ("advice", .string(a.advice.text)),
                ("fix", .optional(store.flatMap { Self.fix(a, store: $0) }.map(ShellWord.line))),
            ])
    }

    private func positionJSON(_ r: MergeRecord) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("source", .string(r.source)), ("keyFormat", .optional(r.keyFormat?.description)),
        ]
        switch r.position {
        case .date(let d, let whole):
            pairs += [
                ("type", .string("date")), ("date", .optional(time.iso(d))), ("cocoaDate", .double(d)),
                ("wholeSeconds", .bool(whole)),
            ]
        case .token(let t):
            pairs += [("type", .string("token")), ("token", HistoryPresenter.json(t))]
        case .unreadable(let why):
            pairs += [("type", .string("unreadable")), ("problem", .string(why))]
        }
        return .object(pairs)
    }
}
