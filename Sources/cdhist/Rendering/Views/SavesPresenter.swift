import HistoryKit

/// Presents the saves of a store's `-wal`.
struct SavesPresenter {
    /// Writes the saves of `listing` one at a time, as its log reads them, so that a log of any
    /// length lists in bounded memory: JSON the document's members, then the saves, last; NDJSON a
    /// line per save; CSV the table of saves; a table the fields, the saves and the notes.
    func render(_ listing: SaveListing, store: String, context: RenderContext) throws {
        let (log, slots) = (listing.log, listing.slots)
        // Why a save is partial, under its row, when one is.
        let partial = log.log.commits.indices.contains { log.reason(ofSave: $0 + 1) != nil }
        // Laid out from the first saves: numbers as wide as the last save's.
        let lastFrame = String(log.log.commits.last?.lastFrame ?? 0).count
        let columns =
            [
                Column("Save", alignRight: true, minWidth: String(log.log.commits.count).count),
                Column("Frames", minWidth: 2 * lastFrame + 1),
                Column("Pages", alignRight: true), Column("Transactions", fit: .wrap(min: 12)),
                Column("Rows", fit: .wrap(min: 16)), Column("State"),
            ] + (partial ? [Column("Why", fit: .below)] : [])
        var header = headerJSON(log, store: store)
        if let slots { header.append(("slotCheck", slotJSON(slots))) }
        if context.format == .table {
            DocumentRenderer.render(
                Document(kind: "saves", json: [], sections: [fields(log, store: store)]), context: context)
            context.output.line()
            guard !log.log.commits.isEmpty else {
                return DocumentRenderer.render(
                    Document(kind: "saves", json: [], sections: notes(log, withoutHistory: [], slots: slots)),
                    context: context)
            }
            context.output.line(context.style("Saves", .bold))
        }
        let list = ListRenderer(context: context, kind: "saves", columns: columns, header: header)
        var withoutHistory: [Int] = []
        try log.forEachSave { s in
            if s.changesEntitiesWithoutHistory { withoutHistory.append(s.commit.number) }
            list.add(
                cells: [
                    Cell("\(s.commit.number)"), Cell("\(s.commit.firstFrame)–\(s.commit.lastFrame)"),
                    Cell("\(s.commit.pages)"),
                    Cell(transactions(s)), Cell(rowText(s)),
                    Cell(s.exact ? "exact" : "partial", s.exact ? nil : .yellow),
                ]
                    + (partial ? [Cell(s.why ?? "")] : []),
                record: SaveRecord(summary: s))
        }
        list.finish()
        if context.format == .table {
            let after = notes(log, withoutHistory: withoutHistory, slots: slots)
            if !after.isEmpty {
                context.output.line()
                DocumentRenderer.render(Document(kind: "saves", json: [], sections: after), context: context)
            }
        }
    }

    private func fields(_ log: SaveLog, store: String) -> Document.Section {
        // The -wal by its name when it sits beside the store as given (the Store line names the folder).
        let wal = MergeStatePresenter.beside(store, log.log.path)
        guard !log.log.isEmpty && !log.log.isMissing else {
            return .fields(
                title: nil,
                [("Store", store), ("WAL", log.log.isMissing ? "none" : "\(wal): empty (0 bytes), no save")])
        }
        return .fields(
            title: nil,
            [
                ("Store", store),
                (
                    "WAL",
                    """
                    \(wal): \(plural(log.log.frames.count, "valid frame")) of \(log.log.pageSize) bytes, \
                    \(plural(log.log.commits.count, "save"))
                    """
                ),
                (
                    "Checkpoint",
                    log.exactness.backfilled == 0
                        ? "no frame copied into the main file, \(log.exactness.source)"
                        : "frames 1–\(log.exactness.backfilled) copied into the main file, \(log.exactness.source)"
                ),
            ])
    }

    /// What follows the table: saves without history, loose frames, damage, the slot check.
    private func notes(_ log: SaveLog, withoutHistory: [Int], slots: SlotCheck?) -> [Document.Section] {
        var sections: [Document.Section] = []
        if log.log.isMissing {
            sections.append(
                .note(
                    """
                    The store has no -wal (SQLite removes it when the last connection closes): the main file \
                    alone is the store, with no save to list.
                    """
                ))
        } else if log.log.isEmpty {
            sections.append(
                .note(
                    """
                    The -wal is empty: it was reset after a checkpoint and nothing was written since, so the main \
                    file alone is the store.
                    """
                ))
        } else if log.log.commits.isEmpty {
            sections.append(.note("The -wal holds no commit: the main file alone is the store."))
        }
        if !withoutHistory.isEmpty {
            let shown =
                withoutHistory.prefix(20).map(String.init).joined(separator: ", ")
                + (withoutHistory.count > 20 ? ", … and \(withoutHistory.count - 20) more" : "")
            sections.append(
                .note(
                    (withoutHistory.count == 1 ? "Save " : "Saves ")
                        + """
                        \(shown) changed objects without recording a history transaction (a context without \
                        history tracking, a batch request or a migration).
                        """
                ))
        }
        if let u = log.unfinished {
            sections.append(
                .note(
                    """
                    Frames \(u.firstFrame)–\(u.lastFrame) come after the last commit: a save that never finished \
                    (\(plural(u.pages, "page"))); SQLite ignores them.
                    """
                ))
        }
        for g in log.olderGenerations {
            sections.append(
                .note(
                    """
                    Frames \(g.firstFrame)–\(g.lastFrame) are of an earlier generation of the log (other salts): \
                    \(plural(g.pages, "page")), \(plural(g.commits, "commit")); left behind when the log was \
                    reset, they are not part of the store.
                    """
                ))
        }
        if let damage = log.log.damage { sections.append(.note("The -wal is damaged: \(damage).")) }
        if let slots { sections.append(slotSection(slots)) }
        return sections
    }

    private func slotSection(_ c: SlotCheck) -> Document.Section {
        var fields: [(String, String)] =
            [
                ("Updates", "\(c.updates) compared" + Self.leftOut(c)),
                ("Changed", "\(plural(c.changedProperties, "property value")) changed, \(c.named) named by their bits"),
                (
                    "By trigger",
                    c.byTrigger == 0
                        ? "none"
                        : "\(c.byTrigger), left out: Core Data's triggers set these columns, with no bit by design ("
                            + c.triggerProperties.prefix(5).joined(separator: ", ")
                            + (c.triggerProperties.count > 5 ? ", … and \(c.triggerProperties.count - 5) more" : "")
                            + ")"
                ),
                (
                    "Without bit",
                    c.misses.isEmpty
                        ? "none: the slot layout names every property a save changed"
                        : "\(c.misses.count): "
                            + c.misses.prefix(5).map {
                                "#\($0.transactionNumber) change \($0.changeID) \($0.entity).\($0.property)"
                            }.joined(separator: ", ")
                            + (c.misses.count > 5 ? ", … and \(c.misses.count - 5) more" : "")
                ),
                ("Bits kept", "\(c.unchangedBits) bits name a property set to the value it had (normal)"),
            ]
            + c.uncertainLayouts.map { e in
                (
                    "Layout",
                    "\(e.entity).\(e.property) (derived or composite) counted as slot \(e.slot): "
                        + (e.refuting > 0
                            ? "refuted: \(e.refuting) changed properties at later slots lack their bits"
                            : e.supporting > 0
                                ? "established: \(e.supporting) changed properties at later slots each have their bit"
                                : "not tried: no save changed a property at a later slot")
                )
            }
        if c.updates == 0 {
            fields = [
                (
                    "Updates",
                    c.partial + c.skipped == 0 ? "none in the saves to compare" : "none compared" + Self.leftOut(c)
                )
            ]
        }
        return .fields(title: "Slot layout against the saves", fields)
    }

    /// The updates left out of the comparison, and why.
    private static func leftOut(_ c: SlotCheck) -> String {
        let parts = [
            c.skipped > 0 ? "\(c.skipped) without a row on one side" : nil,
            c.partial > 0 ? "\(c.partial) of partial saves" : nil,
        ].compactMap { $0 }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: " and ") + ", left out)"
    }

    private func slotJSON(_ c: SlotCheck) -> JSONValue {
        .object([
            ("updates", .int(Int64(c.updates))), ("skipped", .int(Int64(c.skipped))),
            ("changedProperties", .int(Int64(c.changedProperties))),
            ("named", .int(Int64(c.named))), ("unchangedBits", .int(Int64(c.unchangedBits))),
            ("partialSaveUpdates", .int(Int64(c.partial))), ("byTrigger", .int(Int64(c.byTrigger))),
            ("triggerProperties", .array(c.triggerProperties.map { .string($0) })),
            (
                "uncertainLayouts",
                .array(
                    c.uncertainLayouts.map { e in
                        .object([
                            ("entity", .string(e.entity)), ("property", .string(e.property)),
                            ("slot", .int(Int64(e.slot))),
                            ("supporting", .int(Int64(e.supporting))), ("refuting", .int(Int64(e.refuting))),
                            ("established", .bool(e.isEstablished)),
                        ])
                    })
            ),
            (
                "withoutBit",
                .array(
                    c.misses.map { m in
                        .object([
                            ("changeID", .int(m.changeID)), ("transactionNumber", .int(m.transactionNumber)),
                            ("entity", .string(m.entity)),
                            ("property", .string(m.property)),
                        ])
                    })
            ),
        ])
    }

    /// A partial save's changes are not known: the pages before and after it differ by what a
    /// checkpoint overwrote too.
    private static let unknown = "unknown"

    private func transactions(_ s: SaveSummary) -> String {
        guard let c = s.changes else { return Self.unknown }
        var parts: [String] = []
        if let first = c.transactionsAdded.first, let last = c.transactionsAdded.last {
            parts.append(
                first == last
                    ? "#\(first)"
                    : last.subtractingReportingOverflow(first) == (Int64(c.transactionsAdded.count - 1), false)
                        ? "#\(first)–#\(last)"
                        : c.transactionsAdded.map { "#\($0)" }.joined(separator: ", "))
        }
        if !c.transactionsRemoved.isEmpty {
            parts.append("\(plural(c.transactionsRemoved.count, "transaction")) removed")
        }
        return parts.isEmpty ? "-" : parts.joined(separator: "; ")
    }

    private func rowText(_ s: SaveSummary) -> String {
        guard let c = s.changes else { return Self.unknown }
        let parts = c.entities.map { e in
            "\(e.name) "
                + [
                    e.inserted > 0 ? "+\(e.inserted)" : nil, e.updated > 0 ? "~\(e.updated)" : nil,
                    e.deleted > 0 ? "−\(e.deleted)" : nil,
                ]
                .compactMap { $0 }.joined(separator: " ")
        }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
    }

    /// The document's members before its saves.
    private func headerJSON(_ log: SaveLog, store: String) -> [(String, JSONValue)] {
        func loose(_ f: LooseFrames) -> JSONValue {
            .object([
                ("firstFrame", .int(Int64(f.firstFrame))), ("lastFrame", .int(Int64(f.lastFrame))),
                ("pages", .int(Int64(f.pages))),
                ("commits", .int(Int64(f.commits))),
            ])
        }
        return [
            ("store", .string(store)),
            (
                "wal",
                .object([
                    ("path", .string(log.log.path)), ("bytes", log.log.isMissing ? .null : .int(log.log.size)),
                    ("pageSize", .int(Int64(log.log.pageSize))),
                    ("frames", .int(Int64(log.log.frames.count))), ("damage", .optional(log.log.damage)),
                ])
            ),
            ("backfilledFrames", .int(Int64(log.exactness.backfilled))),
            ("unfinished", log.unfinished.map(loose) ?? .null),
            ("olderGeneration", .array(log.olderGenerations.map(loose))),
        ]
    }

    /// One save as JSON.
    struct SaveRecord: JSONRecord {
        let summary: SaveSummary

        func write<S: JSONSink>(format: String?, to s: inout S) {
            let save = summary
            s.beginObject()
            if let format { s.member("format", format) }
            s.member("save", save.commit.number)
            s.member("firstFrame", save.commit.firstFrame)
            s.member("lastFrame", save.commit.lastFrame)
            s.member("pages", save.commit.pages)
            // A partial save's changes are not known: null, never counts.
            let c = save.changes
            s.key("transactionNumbers")
            Self.write(c?.transactionsAdded, to: &s)
            s.key("transactionsRemoved")
            Self.write(c?.transactionsRemoved, to: &s)
            s.member("changesAdded", c?.changesAdded)
            s.member("changesRemoved", c?.changesRemoved)
            s.key("entities")
            Self.write(c?.entities, key: "entity", to: &s)
            s.key("otherTables")
            Self.write(c?.otherTables, key: "table", to: &s)
            s.member("withoutHistory", save.changesEntitiesWithoutHistory)
            s.member("exact", save.exact)
            s.member("why", save.why)
            s.endObject()
        }

        private static func write<S: JSONSink>(_ numbers: [Int64]?, to s: inout S) {
            guard let numbers else { return s.null() }
            s.beginArray()
            for n in numbers { s.int(n) }
            s.endArray()
        }

        private static func write<S: JSONSink>(_ counts: [SaveSummary.RowCounts]?, key: String, to s: inout S) {
            guard let counts else { return s.null() }
            s.beginArray()
            for c in counts {
                s.beginObject()
                s.key(named: key)
                s.string(c.name)
                s.member("inserted", c.inserted)
                s.member("updated", c.updated)
                s.member("deleted", c.deleted)
                s.endObject()
            }
            s.endArray()
        }
    }
}
