import Foundation
import HistoryKit

/// What an examination read and proves it left unchanged: each input's path, size, modification
/// time and SHA-256 before and after, the tool and SQLite that read them, and how.
struct EvidencePresenter {
    let time: TimeFormatter

    /// Seconds from 1970 to Cocoa's reference date.
    private static let cocoaOffset = Date.timeIntervalBetween1970AndReferenceDate

    /// A sentence on whether every input is as it was.
    static func verdict(_ exam: Examination) -> String {
        let changed = exam.files.filter { !$0.unchanged }.map(\.input.path)
        return changed.isEmpty
            ? "every file the same before and after reading (SHA-256 and size)"
            : "CHANGED while read (another process wrote it): \(changed.joined(separator: ", "))"
    }

    /// When, with what and how the files were read, and whether they are as they were.
    func summary(_ exam: Examination, access: StoreAccess?) -> [(String, String)] {
        // In UTC whatever the display's zone, as a record of the examination.
        var fields = [
            ("Examined", utc(exam.began) + (exam.ended.map { " to " + utc($0) } ?? "")),
            (
                "cdhist",
                "\(ToolVersion.number), commit \(ToolVersion.commit ?? "unknown (not built by scripts/install)")"
            ),
            ("SQLite", SQLiteLibrary.version),
        ]
        if let access { fields.append(("Opened", access.description)) }
        fields.append(("Unchanged", Self.verdict(exam)))
        return fields
    }

    /// Fields for a terminal: the summary, then per file its path, size and time, and its hash
    /// (on a line of its own: 64 characters fit beside these short names at 80 columns).
    func fields(_ exam: Examination, access: StoreAccess?) -> [(String, String)] {
        var fields = summary(exam, access: access)
        for file in exam.files where file.wasPresent {
            fields.append((Self.roleTitle(file.input.role), "\(file.input.path) (\(detail(file)))"))
            if let before = file.before?.sha256 { fields.append(("SHA-256", before)) }
            if let after = file.after?.sha256, after != file.before?.sha256 { fields.append(("after", after)) }
            for member in file.members {
                fields.append((Self.roleTitle(member.role) + " in it", "\(member.path) (\(member.size) bytes)"))
                fields.append(("SHA-256", member.sha256))
            }
        }
        return fields
    }

    /// The report's section: the summary, and the files as a table.
    func sections(_ exam: Examination, access: StoreAccess?) -> [Document.Section] {
        let changed = exam.files.contains { !$0.unchanged }
        let columns =
            [
                Column("File"), Column("Path", fit: .wrap(min: 20)), Column("Size, modified", fit: .wrap(min: 20)),
                Column("SHA-256", minWidth: 64),
            ] + (changed ? [Column("SHA-256 after", minWidth: 64)] : [])
        let rows = exam.files.filter(\.wasPresent).flatMap { file in
            [
                [
                    Cell(Self.roleTitle(file.input.role)), Cell(file.input.path), Cell(detail(file)),
                    Cell(file.before?.sha256 ?? "-"),
                ]
                    + (changed ? [Cell(file.after?.sha256 ?? "-", file.unchanged ? nil : .red)] : [])
            ]
                + file.members.map { member in
                    [
                        Cell(Self.roleTitle(member.role) + " in it"), Cell(member.path),
                        Cell("\(member.size) bytes, read from it"), Cell(member.sha256),
                    ]
                        + (changed ? [Cell("-")] : [])
                }
        }
        return [
            .fields(title: nil, summary(exam, access: access)),
            .table(title: "Files, hashed before and after reading", columns: columns, rows: rows),
        ]
    }

    private func detail(_ file: Examination.File) -> String {
        (file.before ?? file.after).map { "\($0.size) bytes, modified \(time.display($0.modified - Self.cocoaOffset))" }
            ?? "not present"
    }

    /// `document` with the examination as its last section and its `evidence` member.
    func add(_ exam: Examination, access: StoreAccess?, to document: inout Document) {
        document.sections.append(.fields(title: "Evidence", fields(exam, access: access)))
        document.json.append(("evidence", json(exam, access: access)))
    }

    /// The examination as JSON.
    func json(_ exam: Examination, access: StoreAccess?) -> JSONValue {
        func digest(_ d: FileDigest?) -> JSONValue {
            d.map {
                .object([
                    ("size", .int($0.size)), ("modified", .optional(time.iso($0.modified - Self.cocoaOffset))),
                    ("sha256", .string($0.sha256)),
                ])
            } ?? .null
        }
        return .object([
            ("examined", .string(utc(exam.began))),
            ("ended", .optional(exam.ended.map(utc))),
            ("version", .string(ToolVersion.number)),
            ("commit", .optional(ToolVersion.commit)),
            ("sqliteVersion", .string(SQLiteLibrary.version)),
            ("access", .optional(access?.description)),
            ("unchanged", .bool(exam.unchanged)),
            (
                "files",
                .array(
                    exam.files.filter(\.wasPresent).map { file in
                        .object([
                            ("role", .string(file.input.role.rawValue)), ("path", .string(file.input.path)),
                            ("before", digest(file.before)), ("after", digest(file.after)),
                            ("unchanged", .bool(file.unchanged)),
                            (
                                "members",
                                .array(
                                    file.members.map { member in
                                        .object([
                                            ("role", .string(member.role.rawValue)), ("path", .string(member.path)),
                                            ("size", .int(member.size)),
                                            ("sha256", .string(member.sha256)),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
        ])
    }

    /// Seconds since 1970 as ISO 8601 UTC.
    private func utc(_ unix: Double) -> String { time.iso(unix - Self.cocoaOffset) ?? "\(unix) s" }

    static func roleTitle(_ role: EvidenceInput.Role) -> String {
        switch role {
        case .store: return "Store"
        case .wal: return "WAL"
        case .shm: return "SHM"
        case .journal: return "Journal"
        case .defaults: return "Defaults"
        case .token: return "Token"
        case .model: return "Model"
        case .config: return "Config"
        case .backupManifest: return "Manifest"
        case .archive: return "Archive"
        }
    }
}
