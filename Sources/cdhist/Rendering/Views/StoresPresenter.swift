import Foundation
import HistoryKit

/// `stores`: one row per store, newest activity first, its name under it; problems counted
/// (listed with `all`).
struct StoresPresenter {
    let time: TimeFormatter
    let all: Bool

    /// `--names`: each store's name on a line of its own, as other commands take it.
    func writeNames(_ listing: StoreListing, context: RenderContext) {
        for store in listing.stores { context.output.line(TerminalText.visible(store.name)) }
        context.output.flush()
    }

    func document(_ listing: StoreListing, places: [String]) -> Document {
        // An identifier column only when a store has one; a place only where the name does not already say it
        // (a store in a folder: its path is its name; a backup's or a device's: the place names them).
        let identified = listing.stores.contains { $0.surroundings.identifier != nil }
        func place(_ s: FoundStore) -> String {
            s.name.hasPrefix(s.surroundings.location + "/") ? "" : s.surroundings.location
        }
        let placed = listing.stores.contains { !place($0).isEmpty }
        let rows: [[Cell]] = listing.stores.map { s in
            (identified ? [HistoryPresenter.optional(s.surroundings.identifier)] : [])
                + (placed ? [Cell(place(s))] : [])
                + [
                    Cell(String(s.glance.transactionCount)),
                    Cell(s.newest.map { String(time.display($0).prefix(16)) } ?? "-"),
                    Cell(ByteCount.short(Self.total(s))), Cell(s.health.rawValue),
                    Cell(s.surroundings.defaultsPlists.isEmpty && s.surroundings.tokenFiles.isEmpty ? "none" : "found"),
                    Cell(s.name),
                ]
        }
        var sections: [Document.Section] = []
        if rows.isEmpty {
            sections.append(.note("no Core Data store with history under \(places.joined(separator: ", "))"))
        } else {
            let columns =
                (identified ? [Column("Identifier", fit: .wrap(min: 12), importance: .key)] : [])
                + (placed ? [Column("Where", fit: .wrap(min: 8))] : [])
                + [
                    Column("Transactions", alignRight: true), Column("Newest"), Column("Size", alignRight: true),
                    Column("Health"), Column("State"), Column("Name", copiable: true),
                ]
            sections.append(.table(title: nil, columns: columns, rows: rows))
        }
        if !listing.problems.isEmpty {
            if all {
                sections.append(
                    .table(
                        title: "Problems",
                        columns: [
                            Column("File", fit: .wrap(min: 20), importance: .key),
                            Column("Problem", fit: .wrap(min: 20)),
                        ],
                        rows: listing.problems.map { [Cell($0.name), Cell($0.problem)] }))
            } else {
                sections.append(
                    .note(
                        """
                        \(plural(listing.problems.count, "problem")) found on the way (stores without history, \
                        damaged files, encrypted backups): --all lists them
                        """
                    ))
            }
        }
        let json: [(String, JSONValue)] = [
            ("places", .array(places.map { .string($0) })),
            ("filesExamined", .int(Int64(listing.filesExamined))),
            ("stores", .array(listing.stores.map(storeJSON))),
            (
                "problems",
                .array(
                    listing.problems.map { .object([("name", .string($0.name)), ("problem", .string($0.problem))]) })
            ),
        ]
        return Document(kind: "stores", json: json, sections: sections)
    }

    /// The main file's and the `-wal`'s bytes together (an archive's declared sizes may be anything).
    private static func total(_ s: FoundStore) -> Int64 {
        let (sum, overflow) = s.size.addingReportingOverflow(s.walSize ?? 0)
        return overflow ? .max : sum
    }

    private func storeJSON(_ s: FoundStore) -> JSONValue {
        let g = s.glance
        return .object([
            ("name", .string(s.name)),
            ("identifier", .optional(s.surroundings.identifier)),
            ("container", .optional(s.surroundings.containerKind?.rawValue)),
            ("location", .string(s.surroundings.location)),
            ("file", .string(s.fileName)),
            ("size", .int(s.size)),
            ("walSize", .optional(s.walSize)),
            ("transactionCount", .int(Int64(g.transactionCount))),
            ("firstTransaction", .optional(g.transactionNumbers?.lowerBound)),
            ("lastTransaction", .optional(g.transactionNumbers?.upperBound)),
            ("oldest", .optional(time.iso(g.timestamps?.lowerBound))),
            ("newest", .optional(time.iso(g.timestamps?.upperBound))),
            ("purged", .bool(g.wasPurged)),
            ("health", .string(s.health.rawValue)),
            ("defaults", .array(s.surroundings.defaultsPlists.map { .string($0) })),
            ("tokenFiles", .array(s.surroundings.tokenFiles.map { .string($0) })),
        ])
    }
}
