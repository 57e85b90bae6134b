import Foundation
import HistoryKit

/// Turns transactions and changes into JSON objects (names follow Core
/// Data's API) and table cells.
struct HistoryPresenter {
    let time: TimeFormatter

    static let transactionColumns = [
        Column("#", alignRight: true), Column("Time"), Column("Author", flexible: true),
        Column("Context", flexible: true), Column("Bundle", flexible: true), Column("Process", flexible: true),
        Column("Changes", alignRight: true),
    ]

    static let changeColumns = [
        Column("Change", alignRight: true), Column("Tx", alignRight: true), Column("Type"),
        Column("Entity", flexible: true), Column("PK", alignRight: true), Column("Details", flexible: true),
    ]

    func json(_ tx: Transaction, changes: [Change]? = nil) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("transactionNumber", .int(tx.number)),
            ("timestamp", .optional(time.iso(tx.timestamp))),
            ("cocoaTimestamp", .optional(tx.timestamp)),
            ("author", .optional(tx.author)),
            ("contextName", .optional(tx.contextName)),
            ("bundleID", .optional(tx.bundleID)),
            ("processID", .optional(tx.processID)),
            ("storeID", .string(tx.storeUUID)),
            ("token", Self.json(tx.token)),
            ("changeCount", .int(Int64(tx.changeCount))),
            ("queryGenerationLength", .optional(tx.queryGenerationLength)),
        ]
        if let changes { pairs.append(("changes", .array(changes.map(json)))) }
        return .object(pairs)
    }

    static func json(_ token: HistoryToken) -> JSONValue {
        .object(token.transactionNumbers.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
    }

    func cells(_ tx: Transaction) -> [Cell] {
        [Cell(String(tx.number)), Cell(time.display(tx.timestamp)), Self.optional(tx.author), Self.optional(tx.contextName),
         Self.optional(tx.bundleID), Self.optional(tx.processID), Cell(String(tx.changeCount))]
    }

    func json(_ change: Change) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("changeID", .int(change.changeID)),
            ("transactionNumber", .int(change.transactionNumber)),
            ("changeType", .string(change.changeType.description)),
            ("entity", .optional(change.entityName)),
            ("entityNumber", .int(change.entityNumber)),
            ("entityPK", .int(change.entityPK)),
            ("changedObjectID", .optional(change.changedObjectID)),
            ("updatedProperties", change.updatedProperties.map { .array($0.map { .string($0) }) } ?? .null),
            ("updatedSlots", change.updatedSlots.map { .array($0.map { .int(Int64($0)) }) } ?? .null),
            ("tombstone", change.changeType == .delete
                ? .object(change.tombstone.map { ($0.name, tombstoneJSON($0)) }) : .null),
        ]
        if !change.warnings.isEmpty {
            pairs.append(("warnings", .array(change.warnings.map { w in
                .object([("kind", .string(w.kind.rawValue)), ("message", .string(w.message)), ("rawHex", .optional(w.rawHex))])
            })))
        }
        return .object(pairs)
    }

    func cells(_ change: Change, color: Bool) -> [Cell] {
        let typeStyle: Style? = {
            switch change.changeType {
            case .insert: return .green
            case .update: return .yellow
            case .delete: return .red
            case .unknown: return .red
            }
        }()
        var details: String
        switch change.changeType {
        case .update:
            details = change.updatedProperties?.joined(separator: ", ")
                ?? (change.updatedSlots ?? []).map { "slot \($0)" }.joined(separator: ", ")
        case .delete:
            details = change.tombstone.map { "\($0.name)=\(tombstoneText($0))" }.joined(separator: ", ")
        default:
            details = ""
        }
        if !change.warnings.isEmpty {
            details += (details.isEmpty ? "" : "  ") + "⚠ " + change.warnings.map(\.description).joined(separator: "; ")
        }
        return [Cell(String(change.changeID)), Cell(String(change.transactionNumber)),
                Cell(change.changeType.description, typeStyle),
                change.entityName.map { Cell($0) } ?? Cell("Z_ENT \(change.entityNumber)", .red),
                Cell(String(change.entityPK)), Cell(details, change.warnings.isEmpty ? nil : .red)]
    }

    /// A tombstone value typed for JSON: dates as ISO 8601, UUID blobs as UUID strings, other blobs as hex.
    func tombstoneJSON(_ entry: TombstoneEntry) -> JSONValue {
        switch entry.value {
        case .integer(let i): return entry.attributeType == .boolean ? .bool(i != 0) : .int(i)
        case .real(let d): return entry.attributeType == .date ? .optional(time.iso(d)) : .double(d)
        case .text(let s): return .string(s)
        case .blob(let b): return .string(Self.blobText(b, type: entry.attributeType))
        }
    }

    private func tombstoneText(_ entry: TombstoneEntry) -> String {
        switch entry.value {
        case .integer(let i): return String(i)
        case .real(let d): return entry.attributeType == .date ? time.display(d) : "\(d)"
        case .text(let s): return "\"\(s)\""
        case .blob(let b): return Self.blobText(b, type: entry.attributeType)
        }
    }

    static func blobText(_ bytes: [UInt8], type: AttributeType?) -> String {
        if type == .uuid, bytes.count == 16 {
            let u = bytes
            return UUID(uuid: (u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15])).uuidString
        }
        return "0x" + bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func optional(_ s: String?) -> Cell {
        s.map { Cell($0) } ?? Cell("-", .dim)
    }
}
