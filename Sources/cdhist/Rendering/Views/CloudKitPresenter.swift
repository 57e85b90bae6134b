import Foundation
import HistoryKit

/// Presents CloudKit mirroring's state: the export position and what is after
/// it, per-object export progress, objects changed since their export, fetches
/// and recent events.
struct CloudKitPresenter {
    let time: TimeFormatter
    let now: Double

    /// The page of what `cloudkit` found (see ``CloudKitStatus``).
    func document(_ c: CloudKitStatus) -> Document {
        guard let state = c.state else {
            return Document(
                kind: "cloudkit", json: json(c),
                sections: [
                    .note(
                        "\(c.store.path): not mirrored with CloudKit (no ANSCK tables, no mirroring keys in Z_METADATA)"
                    )
                ])
        }
        var fields: [(String, String)] = [("Store", "\(c.store.path) (\(c.store.storeUUID))")]
        var mirroring =
            state.tables.isEmpty
            ? "no ANSCK tables; its keys in Z_METADATA (the first release's layout)"
            : plural(state.tables.count, "ANSCK table")
        if let v = state.frameworkVersion { mirroring += ", metadata version \(v)" }
        if let checked = state.identityChecked {
            mirroring += checked ? ", iCloud identity checked" : ", iCloud identity not checked"
        }
        if state.needsMetadataMigration == true { mirroring += ", metadata migration pending" }
        fields.append(("Mirroring", mirroring))
        if let e = c.exporter {
            fields.append(
                (
                    "Export position",
                    MergeStatePresenter(time: time, now: now).merged(e)
                        + (e.records.first.map { " in \($0.source)" } ?? "")
                ))
            fields.append(("Status", "\(e.status.rawValue): \(e.explanation); \(e.advice.text)"))
            if e.status == .behind || e.status == .upToDate || e.status == .neverMerged || e.status == .expired {
                fields.append(("After it", afterPosition(e, changes: c.changesAfterPosition)))
            }
        }
        if let r = state.records {
            var parts = ["\(r.mirrored) mirrored"]
            if let n = r.needsUpload { parts.append("\(n) await upload") }
            if let n = r.needsCloudDelete { parts.append("\(n) await deletion in iCloud") }
            if let n = r.needsLocalDelete, n > 0 { parts.append("\(n) await deletion here") }
            if let n = r.exportInFlight { parts.append("\(n) in an export in flight") }
            if let last = r.lastExportedTransaction { parts.append("newest export #\(last)") }
            fields.append(("Records", parts.joined(separator: ", ")))
        } else {
            fields.append(("Records", "not known (no ANSCKRECORDMETADATA table)"))
        }
        if let b = c.backlog {
            fields.append(
                (
                    "Changed since",
                    b.count == 0
                        ? "no mirrored object changed after its last export"
                        : """
                        \(b.count) mirrored object\(b.count == 1 ? "" : "s") changed after \
                        \(b.count == 1 ? "its" : "their") last export
                        """
                ))
        }
        let fetches =
            (state.databases ?? []).map { "\($0.scopeName) database \(ago($0.lastFetch))" }
            + (state.zones ?? []).map { "zone \($0.name ?? "(no name)") \(ago($0.lastFetch))" }
        if !fetches.isEmpty { fields.append(("Last fetch", fetches.joined(separator: "; "))) }
        if let count = state.eventCount {
            let failed = (state.recentEvents ?? []).filter { $0.succeeded == false }.count
            fields.append(
                (
                    "Events",
                    "\(count) recorded"
                        + (count > 0 ? "; of the newest \(state.recentEvents?.count ?? 0), \(failed) failed" : "")
                ))
        }
        for problem in state.problems { fields.append(("Not read", problem)) }

        var sections: [Document.Section] = [.fields(title: nil, fields)]
        if let r = state.records, !r.byEntity.isEmpty {
            sections.append(
                .table(
                    title: "By entity",
                    columns: [
                        Column("Entity", flexible: true), Column("Mirrored", alignRight: true),
                        Column("Upload", alignRight: true),
                        Column("Cloud delete", alignRight: true), Column("Changed", alignRight: true),
                    ],
                    rows: r.byEntity.map { e in
                        [
                            Cell(e.entityName ?? e.entityNumber.map { "Z_ENT \($0)" } ?? "ZENTITYID not an integer"),
                            Cell(String(e.mirrored)),
                            Cell(e.needsUpload.map(String.init) ?? "-"),
                            Cell(e.needsCloudDelete.map(String.init) ?? "-"),
                            Cell(c.backlog.map { b in String(e.entityNumber.flatMap { b.byEntity[$0] } ?? 0) } ?? "-"),
                        ]
                    }))
        }
        if let b = c.backlog, !b.objects.isEmpty {
            var rows = b.objects.map { o in
                [
                    Cell("\(o.entityName ?? "Z_ENT \(o.entityNumber)")/p\(o.primaryKey)"),
                    Cell(o.lastExported.map { "#\($0)" } ?? "never"),
                    Cell("#\(o.lastChanged)"),
                ]
            }
            if b.count > b.objects.count {
                rows.append([
                    Cell("… and \(b.count - b.objects.count) more (--objects N, or JSON)"), Cell(""), Cell(""),
                ])
            }
            sections.append(
                .table(
                    title: "Changed since their last export",
                    columns: [
                        Column("Object"), Column("Last exported"), Column("Last changed"),
                    ], rows: rows))
        }
        if let events = state.recentEvents, !events.isEmpty {
            sections.append(
                .table(
                    title: "Recent events",
                    columns: [
                        Column("Type"), Column("Started"), Column("Took", alignRight: true),
                        Column("Result", fit: .wrap(min: 12)),
                    ],
                    rows: events.map { e in
                        [
                            Cell(e.typeName), Cell(time.display(e.started)),
                            Cell(
                                e.ended.flatMap { end in
                                    e.started.flatMap { end >= $0 ? MergeStatePresenter.age(end - $0) : nil }
                                } ?? "-"),
                            result(e),
                        ]
                    }))
        }
        return Document(kind: "cloudkit", json: json(c), sections: sections)
    }

    /// What comes after the export position: to export, and CloudKit's own.
    private func afterPosition(_ e: ActorReport, changes: Int?) -> String {
        let total = e.pending.count + e.pending.ownCount
        var text = plural(total, "transaction")
        if let changes { text += " and \(plural(changes, "change"))" }
        guard total > 0 else { return text }
        let authors = e.pending.byAuthor.prefix(3).map { "\($0.author ?? "no author") \($0.count)" }
        let more = e.pending.byAuthor.count > 3 ? ", …" : ""
        text +=
            ": \(e.pending.count) to export" + (authors.isEmpty ? "" : " (\(authors.joined(separator: ", "))\(more))")
        if e.pending.ownCount > 0 { text += ", \(e.pending.ownCount) by CloudKit itself (not exported)" }
        return text
    }

    private func ago(_ t: Double?) -> String {
        guard let t else { return "never" }
        return "\(time.display(t)) (\(MergeStatePresenter.age(now - t)) ago)"
    }

    private func result(_ e: MirroringEvent) -> Cell {
        switch e.succeeded {
        case true?: return Cell("succeeded", .green)
        case false?:
            // CloudKit's code named (CKErrorDomain 3: networkUnavailable), another domain's as recorded.
            let name =
                e.errorDomain == CloudKitErrorCode.domain ? e.errorCode.flatMap(CloudKitErrorCode.describe)?.name : nil
            let error =
                e.errorDomain.map { " (\($0)\(e.errorCode.map { " \($0)" } ?? "")\(name.map { ": \($0)" } ?? ""))" }
                ?? ""
            return Cell("failed" + error, .red)
        case nil: return Cell(e.ended == nil ? "running" : "-")
        }
    }

    private func json(_ c: CloudKitStatus) -> [(String, JSONValue)] {
        let state = c.state
        let uuid = c.store.storeUUID
        func iso(_ t: Double?) -> JSONValue { .optional(t.flatMap { time.iso($0) }) }
        return [
            ("store", .string(c.store.path)),
            ("storeID", .string(uuid)),
            ("mirrored", .bool(state != nil)),
            ("tables", .array((state?.tables ?? []).map { .string($0) })),
            ("metadataSource", .optional(state?.metadataSource)),
            ("exporter", c.exporter.map { MergeStatePresenter(time: time, now: now).actorJSON($0) } ?? .null),
            (
                "transactionsAfterPosition",
                .optional(c.exporter.flatMap { e in e.tokenNumber.map { _ in e.pending.count + e.pending.ownCount } })
            ),
            ("changesAfterPosition", .optional(c.changesAfterPosition)),
            (
                "records",
                state?.records.map { r in
                    .object([
                        ("mirrored", .int(Int64(r.mirrored))), ("needsUpload", .optional(r.needsUpload)),
                        ("needsCloudDelete", .optional(r.needsCloudDelete)),
                        ("needsLocalDelete", .optional(r.needsLocalDelete)),
                        ("exportInFlight", .optional(r.exportInFlight)),
                        ("lastExportedTransaction", .optional(r.lastExportedTransaction)),
                        (
                            "byEntity",
                            .array(
                                r.byEntity.map { e in
                                    .object([
                                        ("entity", .optional(e.entityName)),
                                        ("entityNumber", .optional(e.entityNumber)),
                                        ("mirrored", .int(Int64(e.mirrored))),
                                        ("needsUpload", .optional(e.needsUpload)),
                                        ("needsCloudDelete", .optional(e.needsCloudDelete)),
                                        (
                                            "changedSinceExport",
                                            .optional(
                                                c.backlog.map { b in e.entityNumber.flatMap { b.byEntity[$0] } ?? 0 })
                                        ),
                                    ])
                                })
                        ),
                    ])
                } ?? .null
            ),
            (
                "changedSinceExport",
                c.backlog.map { b in
                    .object([
                        ("count", .int(Int64(b.count))),
                        (
                            "objects",
                            .array(
                                b.objects.map { o in
                                    .object([
                                        ("entity", .optional(o.entityName)), ("entityNumber", .int(o.entityNumber)),
                                        ("entityPK", .int(o.primaryKey)),
                                        (
                                            "changedObjectID",
                                            .optional(
                                                o.entityName.map { "x-coredata://\(uuid)/\($0)/p\(o.primaryKey)" })
                                        ),
                                        ("lastExportedTransaction", .optional(o.lastExported)),
                                        ("lastChangedTransaction", .int(o.lastChanged)),
                                    ])
                                })
                        ),
                    ])
                } ?? .null
            ),
            (
                "databases",
                state?.databases.map { list in
                    .array(
                        list.map { d in
                            .object([
                                ("scope", .string(d.scopeName)), ("lastFetch", iso(d.lastFetch)),
                                ("cocoaLastFetch", .optional(d.lastFetch)),
                            ])
                        })
                } ?? .null
            ),
            (
                "zones",
                state?.zones.map { list in
                    .array(
                        list.map { z in
                            .object([
                                ("name", .optional(z.name)), ("owner", .optional(z.owner)),
                                ("lastFetch", iso(z.lastFetch)), ("cocoaLastFetch", .optional(z.lastFetch)),
                            ])
                        })
                } ?? .null
            ),
            ("eventCount", .optional(state?.eventCount)),
            (
                "recentEvents",
                state?.recentEvents.map { list in
                    .array(
                        list.map { e in
                            .object([
                                ("type", .string(e.typeName)), ("started", iso(e.started)), ("ended", iso(e.ended)),
                                ("succeeded", e.succeeded.map { .bool($0) } ?? .null),
                                ("errorDomain", .optional(e.errorDomain)), ("errorCode", .optional(e.errorCode)),
                            ])
                        })
                } ?? .null
            ),
            (
                "metadata",
                .array(
                    (state?.metadata ?? []).map { m in
                        .object([("key", .string(m.key)), ("value", metadataJSON(m.value))])
                    })
            ),
            ("problems", .array((state?.problems ?? []).map { .string($0) })),
        ]
    }

    private func metadataJSON(_ v: MirroringMetadataValue) -> JSONValue {
        switch v {
        case .bool(let b): return .bool(b)
        case .integer(let n): return .int(n)
        case .date(let d): return .optional(time.iso(d))
        case .string(let s): return .string(s)
        case .data(let n): return .object([("bytes", .int(Int64(n)))])
        case .none: return .null
        }
    }
}
