/// One row of `ACHANGE`, decoded: an `NSPersistentHistoryChange`.
public struct Change: Equatable, Sendable {
    /// `Z_PK`: `changeID`.
    public var changeID: Int64
    /// `ZTRANSACTIONID`: the owning transaction's number.
    public var transactionNumber: Int64
    public var changeType: ChangeType
    /// `ZENTITY`: `Z_ENT` of the concrete entity.
    public var entityNumber: Int64
    /// The concrete entity's name from `Z_PRIMARYKEY`; nil when unknown.
    public var entityName: String?
    /// `ZENTITYPK`: the object's `Z_PK` in its root entity's table.
    public var entityPK: Int64
    /// `x-coredata://<store UUID>/<Entity>/p<PK>`; nil when the entity is unknown.
    public var changedObjectID: String?
    /// Set ZCOLUMNS bits (slot indexes), for updates; nil otherwise.
    public var updatedSlots: [Int]?
    /// Names of the updated properties, for updates decoded with a model; nil otherwise.
    public var updatedProperties: [String]?
    /// The raw ZCOLUMNS bytes, when present.
    public var rawColumns: [UInt8]?
    /// Preserved attribute values of a deleted object, in tombstone column order.
    public var tombstone: [TombstoneEntry]
    /// What could not be decoded perfectly.
    public var warnings: [DecodingWarning]

    /// Creates a change from its decoded fields.
    public init(
        changeID: Int64, transactionNumber: Int64, changeType: ChangeType, entityNumber: Int64,
        entityName: String?, entityPK: Int64, changedObjectID: String?, updatedSlots: [Int]?,
        updatedProperties: [String]?, rawColumns: [UInt8]?, tombstone: [TombstoneEntry],
        warnings: [DecodingWarning]
    ) {
        self.changeID = changeID
        self.transactionNumber = transactionNumber
        self.changeType = changeType
        self.entityNumber = entityNumber
        self.entityName = entityName
        self.entityPK = entityPK
        self.changedObjectID = changedObjectID
        self.updatedSlots = updatedSlots
        self.updatedProperties = updatedProperties
        self.rawColumns = rawColumns
        self.tombstone = tombstone
        self.warnings = warnings
    }
}

/// `ZCHANGETYPE`.
public enum ChangeType: Equatable, Hashable, Sendable, CustomStringConvertible {
    case insert, update, delete
    /// A value Core Data does not write.
    case unknown(Int64)

    /// Maps `ZCHANGETYPE` (0 insert, 1 update, 2 delete; anything else is kept as unknown).
    public init(rawValue: Int64) {
        switch rawValue {
        case 0: self = .insert
        case 1: self = .update
        case 2: self = .delete
        default: self = .unknown(rawValue)
        }
    }

    /// Parses `insert`, `update` or `delete`.
    public init?(name: String) {
        switch name.lowercased() {
        case "insert": self = .insert
        case "update": self = .update
        case "delete": self = .delete
        default: return nil
        }
    }

    public var rawValue: Int64 {
        switch self {
        case .insert: return 0
        case .update: return 1
        case .delete: return 2
        case .unknown(let v): return v
        }
    }

    /// `insert`, `update`, `delete`, or `unknown(N)`.
    public var description: String {
        switch self {
        case .insert: return "insert"
        case .update: return "update"
        case .delete: return "delete"
        case .unknown(let v): return "unknown(\(v))"
        }
    }
}

/// One preserved attribute of a deleted object.
public struct TombstoneEntry: Equatable, Sendable {
    /// The attribute name, or `ZTOMBSTONEn` when no model names the slot.
    public var name: String
    public var value: StoredValue
    /// The attribute type from the model, when known (dates are Cocoa seconds).
    public var attributeType: AttributeType?

    /// Creates an entry for attribute `name`.
    public init(name: String, value: StoredValue, attributeType: AttributeType?) {
        self.name = name
        self.value = value
        self.attributeType = attributeType
    }
}

/// Something about a transaction or change row that could not be decoded
/// perfectly. The raw data is kept so nothing is silently lost.
public struct DecodingWarning: Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Equatable, Sendable {
        /// `ZENTITY` is not in `Z_PRIMARYKEY`.
        case unknownEntity
        /// The entity is in `Z_PRIMARYKEY` but not in the model.
        case entityNotInModel
        /// No model is available, so slots cannot be named.
        case noModel
        /// ZCOLUMNS length differs from `ceil(slots / 8)`.
        case columnsLengthMismatch
        /// A ZCOLUMNS bit is set past the entity's last slot.
        case bitPastLastSlot
        /// An update without ZCOLUMNS.
        case missingColumns
        /// A tombstone value in a slot no preserved attribute names.
        case unnamedTombstone
        /// The entity preserves more attributes than the store has tombstone columns.
        case tombstoneColumnsMissing
        /// `ZCHANGETYPE` is not 0, 1 or 2.
        case unknownChangeType
        /// The slot layout relies on something not established (composite, derived).
        case layoutUncertain
        /// A column holds a value of another SQLite type than Core Data writes
        /// there (TEXT in `ZTIMESTAMP`, a BLOB as an author, NULL in `ZENTITY`).
        case wrongType
        /// `ZTIMESTAMP` is infinite or outside the years 1–9999, which no date
        /// in ISO 8601 (or `NSDate` from Core Data) expresses.
        case timestampOutOfRange
    }

    public var kind: Kind
    public var message: Message
    /// The raw bytes concerned, as lowercase hex.
    public var rawHex: String?
    /// The column concerned, when one is.
    public var column: String?

    /// Creates a warning; `rawHex` keeps the bytes concerned.
    public init(kind: Kind, message: Message, rawHex: String? = nil, column: String? = nil) {
        self.kind = kind
        self.message = message
        self.rawHex = rawHex
        self.column = column
    }

    /// `table` row `rowID` holds `found` in `column` where Core Data writes `expected`; cdhist reads it as `readAs`.
    static func wrongType(table: String, rowID: Int64, column: String, found: String, expected: String, readAs: String)
        -> DecodingWarning
    {
        DecodingWarning(
            kind: .wrongType,
            message: "\(table) Z_PK \(rowID): \(column) holds \(found), not \(expected); read as \(readAs)",
            column: column)
    }

    /// The warning with the raw bytes concerned, its controls named by `name`.
    public func worded(_ name: (Control) -> String) -> String {
        let text = message.worded(name)
        return rawHex.map { "\(text) [raw \($0)]" } ?? text
    }

    public var description: String { worded(\.description) }
}
