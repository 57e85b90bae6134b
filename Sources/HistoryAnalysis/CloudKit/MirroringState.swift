/// What CloudKit mirroring (`NSPersistentCloudKitContainer`, SwiftData with
/// iCloud) keeps inside a store: the history position its exporter has
/// reached, per-object export progress, zones, recent events and its metadata.
/// Every part is optional: OS versions differ in which tables and columns they
/// have, and what could not be read is said in ``problems``.
public struct MirroringState: Sendable {
    /// The name the exporter has as an actor.
    public static let exportActorName = "CloudKit export"
    /// The metadata key of the exporter's history token.
    public static let lastHistoryTokenKey = "NSCloudKitMirroringDelegateLastHistoryTokenKey"

    /// The `ANSCK…` tables of the store, sorted.
    public var tables: [String]
    /// Where the mirroring metadata was read: `ANSCKMETADATAENTRY`, or the
    /// store's metadata (`Z_METADATA`) as stores of the first release kept it.
    public var metadataSource: String?
    /// The exporter's history token as a merge record (actor ``exportActorName``,
    /// kind ``ActorKind/cloudKit``); nil when the store holds none.
    public var exportPosition: MergeRecord?
    /// Every metadata entry, by key.
    public var metadata: [MirroringMetadataEntry]
    /// Export progress of the mirrored objects; nil without `ANSCKRECORDMETADATA`.
    public var records: MirroredRecords?
    /// Record zones (`ANSCKRECORDZONEMETADATA`); nil without the table.
    public var zones: [MirroredZone]?
    /// CloudKit databases (`ANSCKDATABASEMETADATA`); nil without the table.
    public var databases: [MirroredDatabase]?
    /// The newest events (`ANSCKEVENT`), newest first; nil without the table.
    public var recentEvents: [MirroringEvent]?
    /// All events in `ANSCKEVENT`.
    public var eventCount: Int?
    /// What could not be read, and why.
    public var problems: [String]

    /// The entry for `key`, if any.
    public func entry(_ key: String) -> MirroringMetadataEntry? { metadata.first { $0.key == key } }

    /// `PFCloudKitMetadataFrameworkVersionKey`.
    /// The newest export among the recent events, when it failed: none succeeded after it.
    public var failedLastExport: MirroringEvent? {
        guard let last = recentEvents?.first(where: { $0.type == 2 }), last.succeeded == false else { return nil }
        return last
    }

    public var frameworkVersion: Int64? { entry("PFCloudKitMetadataFrameworkVersionKey")?.value.integerValue }
    /// `NSCloudKitMirroringDelegateCheckedCKIdentityDefaultsKey`.
    public var identityChecked: Bool? {
        entry("NSCloudKitMirroringDelegateCheckedCKIdentityDefaultsKey")?.value.boolValue
    }
    /// `PFCloudKitMetadataNeedsMetadataMigrationKey`.
    public var needsMetadataMigration: Bool? { entry("PFCloudKitMetadataNeedsMetadataMigrationKey")?.value.boolValue }
}

/// One mirroring metadata entry.
public struct MirroringMetadataEntry: Equatable, Sendable {
    public var key: String
    public var value: MirroringMetadataValue
}

/// A metadata entry's value, from the column that holds it.
public enum MirroringMetadataValue: Equatable, Sendable, CustomStringConvertible {
    case bool(Bool)
    case integer(Int64)
    /// Cocoa seconds.
    case date(Double)
    case string(String)
    /// A transformed (archived) value: its size.
    case data(byteCount: Int)
    /// Every value column is NULL.
    case none

    public var integerValue: Int64? {
        switch self {
        case .integer(let n): return n
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    public var boolValue: Bool? {
        switch self {
        case .bool(let b): return b
        case .integer(let n): return n != 0
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .bool(let b): return b ? "yes" : "no"
        case .integer(let n): return String(n)
        case .date(let d): return "date \(d)"
        case .string(let s): return s
        case .data(let n): return "\(n) bytes"
        case .none: return "no value"
        }
    }
}

/// Export progress of the mirrored objects (`ANSCKRECORDMETADATA`): one row per
/// object CloudKit knows. A count is nil when the OS's table lacks its column.
public struct MirroredRecords: Sendable {
    /// Counts for one entity (`ZENTITYID`, which is `Z_ENT`).
    public struct EntityCounts: Equatable, Sendable {
        /// nil for rows whose `ZENTITYID` is not an integer.
        public var entityNumber: Int64?
        /// The entity's name in `Z_PRIMARYKEY`, when it is there.
        public var entityName: String?
        public var mirrored: Int
        public var needsUpload: Int?
        public var needsCloudDelete: Int?
    }

    public var mirrored: Int
    /// `ZNEEDSUPLOAD`: local changes not yet uploaded.
    public var needsUpload: Int?
    /// `ZNEEDSCLOUDDELETE`: deleted here, not yet in iCloud.
    public var needsCloudDelete: Int?
    /// `ZNEEDSLOCALDELETE`: deleted in iCloud, not yet here.
    public var needsLocalDelete: Int?
    /// `ZPENDINGEXPORTTRANSACTIONNUMBER` set: an export in flight.
    public var exportInFlight: Int?
    /// The highest `ZLASTEXPORTEDTRANSACTIONNUMBER`.
    public var lastExportedTransaction: Int64?
    /// Per entity, by entity number.
    public var byEntity: [EntityCounts]
}

/// A record zone the mirror syncs.
public struct MirroredZone: Equatable, Sendable {
    public var name: String?
    public var owner: String?
    /// Cocoa seconds.
    public var lastFetch: Double?
}

/// A CloudKit database the mirror syncs.
public struct MirroredDatabase: Equatable, Sendable {
    /// `ZDATABASESCOPENUM`: 1 public, 2 private, 3 shared.
    public var scope: Int64?
    /// Cocoa seconds.
    public var lastFetch: Double?

    /// The scope in words.
    public var scopeName: String {
        switch scope {
        case 1: return "public"
        case 2: return "private"
        case 3: return "shared"
        case let n?: return "scope \(n)"
        case nil: return "unknown scope"
        }
    }
}

/// One `NSPersistentCloudKitContainer.Event`.
public struct MirroringEvent: Equatable, Sendable {
    /// 0 setup, 1 import, 2 export.
    public var type: Int64?
    /// Cocoa seconds.
    public var started: Double?
    public var ended: Double?
    public var succeeded: Bool?
    public var errorDomain: String?
    public var errorCode: Int64?

    /// The type in words.
    public var typeName: String {
        switch type {
        case 0: return "setup"
        case 1: return "import"
        case 2: return "export"
        case let n?: return "type \(n)"
        case nil: return "unknown"
        }
    }
}
