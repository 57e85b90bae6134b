import HistoryKit

/// Presents the saves of a store's `-wal`.
struct SavesPresenter {
    func document(_ log: SaveLog, summaries: [SaveSummary], slots: SlotCheck? = nil, store: String) -> Document {
        // Why a save is partial, under its row, when one is.
        let partial = summaries.contains { !$0.exact }
        let rows = summaries.map { s -> [Cell] in
            [Cell("\(s.commit.number)"), Cell("\(s.commit.firstFrame)–\(s.commit.lastFrame)"), Cell("\(s.commit.pages)"),
             Cell(transactions(s)), Cell(rowText(s)), Cell(s.exact ? "exact" : "partial", s.exact ? nil : .yellow)] + (partial ? [Cell(s.why ?? "")] : [])
        }
        var sections: [Document.Section] = [
            .fields(title: nil, [
                ("Store", store),
                ("WAL", "\(log.log.path): \(plural(log.log.frames.count, "valid frame")) of \(log.log.pageSize) bytes, \(plural(log.log.commits.count, "save"))"),
                ("Checkpoint", log.exactness.backfilled == 0 ? "no frame copied into the main file, \(log.exactness.source)"
                    : "frames 1–\(log.exactness.backfilled) copied into the main file, \(log.exactness.source)"),
            ]),
        ]
        sections.append(log.log.commits.isEmpty ? .note("The -wal holds no commit: the main file alone is the store.")
            : .table(title: "Saves", columns: [
                Column("Save", alignRight: true), Column("Frames"), Column("Pages", alignRight: true), Column("Transactions", fit: .wrap(min: 12)),
                Column("Rows", fit: .wrap(min: 16)), Column("State"),
            ] + (partial ? [Column("Why", fit: .below)] : []), rows: rows))
        let without = summaries.filter(\.changesEntitiesWithoutHistory).map { "\($0.commit.number)" }
        if !without.isEmpty {
            sections.append(.note((without.count == 1 ? "Save " : "Saves ") + "\(without.joined(separator: ", ")) changed objects without recording a history transaction (a context without history tracking, a batch request or a migration)."))
        }
        if let u = log.unfinished {
            sections.append(.note("Frames \(u.firstFrame)–\(u.lastFrame) come after the last commit: a save that never finished (\(plural(u.pages, "page"))); SQLite ignores them."))
        }
        for g in log.olderGenerations {
            sections.append(.note("Frames \(g.firstFrame)–\(g.lastFrame) are of an earlier generation of the log (other salts): \(plural(g.pages, "page")), \(plural(g.commits, "commit")); left behind when the log was reset, they are not part of the store."))
        }
        if let damage = log.log.damage { sections.append(.note("The -wal is damaged: \(damage).")) }
        if let slots { sections.append(slotSection(slots)) }
        return Document(kind: "saves", json: json(log, summaries: summaries, store: store) + (slots.map { [("slotCheck", slotJSON($0))] } ?? []),
                        sections: sections)
    }

    private func slotSection(_ c: SlotCheck) -> Document.Section {
        var fields: [(String, String)] = [
            ("Updates", "\(c.updates) compared" + (c.skipped > 0 ? " (\(c.skipped) without a row on one side, left out)" : "")),
            ("Changed", "\(plural(c.changedProperties, "property value")) changed, \(c.named) named by their bits"),
            ("Without bit", c.misses.isEmpty ? "none: the slot layout names every property a save changed"
                : "\(c.misses.count): " + c.misses.prefix(5).map { "#\($0.transactionNumber) change \($0.changeID) \($0.entity).\($0.property)" }.joined(separator: ", ")
                    + (c.misses.count > 5 ? ", … and \(c.misses.count - 5) more" : "")),
            ("Bits kept", "\(c.unchangedBits) bits name a property set to the value it had (normal)"),
        ] + c.uncertainLayouts.map { e in
            ("Layout", "\(e.entity).\(e.property) (derived or composite) counted as slot \(e.slot): "
                + (e.refuting > 0 ? "refuted: \(e.refuting) changed properties at later slots lack their bits"
                    : e.supporting > 0 ? "established: \(e.supporting) changed properties at later slots each have their bit"
                    : "not tried: no save changed a property at a later slot"))
        }
        if c.updates == 0 { fields = [("Updates", "none in the saves to compare")] }
        return .fields(title: "Slot layout against the saves", fields)
    }

    private func slotJSON(_ c: SlotCheck) -> JSONValue {
        .object([
            ("updates", .int(Int64(c.updates))), ("skipped", .int(Int64(c.skipped))), ("changedProperties", .int(Int64(c.changedProperties))),
            ("named", .int(Int64(c.named))), ("unchangedBits", .int(Int64(c.unchangedBits))),
            ("uncertainLayouts", .array(c.uncertainLayouts.map { e in
                .object([("entity", .string(e.entity)), ("property", .string(e.property)), ("slot", .int(Int64(e.slot))),
                         ("supporting", .int(Int64(e.supporting))), ("refuting", .int(Int64(e.refuting))), ("established", .bool(e.isEstablished))])
            })),
            ("withoutBit", .array(c.misses.map { m in
                .object([("changeID", .int(m.changeID)), ("transactionNumber", .int(m.transactionNumber)), ("entity", .string(m.entity)),
                         ("property", .string(m.property))])
            })),
        ])
    }

    private func transactions(_ s: SaveSummary) -> String {
        var parts: [String] = []
        if let first = s.transactionsAdded.first, let last = s.transactionsAdded.last {
            parts.append(first == last ? "#\(first)" : last.subtractingReportingOverflow(first) == (Int64(s.transactionsAdded.count - 1), false) ? "#\(first)–#\(last)"
                : s.transactionsAdded.map { "#\($0)" }.joined(separator: ", "))
        }
        if !s.transactionsRemoved.isEmpty { parts.append("\(plural(s.transactionsRemoved.count, "transaction")) removed") }
        return parts.isEmpty ? "-" : parts.joined(separator: "; ")
    }

    private func rowText(_ s: SaveSummary) -> String {
        let parts = s.entities.map { e in
            "\(e.name) " + [e.inserted > 0 ? "+\(e.inserted)" : nil, e.updated > 0 ? "~\(e.updated)" : nil, e.deleted > 0 ? "−\(e.deleted)" : nil]
                .compactMap { $0 }.joined(separator: " ")
        }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
    }

    private func json(_ log: SaveLog, summaries: [SaveSummary], store: String) -> [(String, JSONValue)] {
        func counts(_ c: SaveSummary.RowCounts, key: String) -> JSONValue {
            .object([(key, .string(c.name)), ("inserted", .int(Int64(c.inserted))), ("updated", .int(Int64(c.updated))), ("deleted", .int(Int64(c.deleted)))])
        }
        func loose(_ f: LooseFrames) -> JSONValue {
            .object([("firstFrame", .int(Int64(f.firstFrame))), ("lastFrame", .int(Int64(f.lastFrame))), ("pages", .int(Int64(f.pages))),
                     ("commits", .int(Int64(f.commits)))])
        }
        return [
            ("store", .string(store)),
            ("wal", .object([("path", .string(log.log.path)), ("pageSize", .int(Int64(log.log.pageSize))),
                             ("frames", .int(Int64(log.log.frames.count))), ("damage", .optional(log.log.damage))])),
            ("backfilledFrames", .int(Int64(log.exactness.backfilled))),
            ("saves", .array(summaries.map { s in
                .object([
                    ("save", .int(Int64(s.commit.number))), ("firstFrame", .int(Int64(s.commit.firstFrame))), ("lastFrame", .int(Int64(s.commit.lastFrame))),
                    ("pages", .int(Int64(s.commit.pages))), ("transactionNumbers", .array(s.transactionsAdded.map { .int($0) })),
                    ("transactionsRemoved", .array(s.transactionsRemoved.map { .int($0) })),
                    ("changesAdded", .int(Int64(s.changesAdded))), ("changesRemoved", .int(Int64(s.changesRemoved))),
                    ("entities", .array(s.entities.map { counts($0, key: "entity") })),
                    ("otherTables", .array(s.otherTables.map { counts($0, key: "table") })),
                    ("withoutHistory", .bool(s.changesEntitiesWithoutHistory)),
                    ("exact", .bool(s.exact)), ("why", .optional(s.why)),
                ])
            })),
            ("unfinished", log.unfinished.map(loose) ?? .null),
            ("olderGeneration", .array(log.olderGenerations.map(loose))),
        ]
    }
}
