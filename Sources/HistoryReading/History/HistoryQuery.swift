/// Which transactions and changes to read, with Core Data's semantics:
/// `after` selects `ZTIMESTAMP > date` or `Z_PK > N`; `before` selects
/// `ZTIMESTAMP < date` or `Z_PK < N` (as `deleteHistory(before:)`).
public struct HistoryQuery: Equatable, Sendable {
    /// A position in history.
    public enum Bound: Equatable, Sendable {
        /// Cocoa seconds (since 2001-01-01 UTC).
        case date(Double)
        /// A transaction number.
        case transaction(Int64)
        /// A token; its number for this store is used.
        case token(HistoryToken)

        /// The bounds that keep exactly the transactions numbered in `range` (none at an end of
        /// the number range, where there is nothing beyond to exclude).
        public static func around(_ range: ClosedRange<Int64>) -> (after: Bound?, before: Bound?) {
            (
                range.lowerBound == .min ? nil : .transaction(range.lowerBound - 1),
                range.upperBound == .max ? nil : .transaction(range.upperBound + 1)
            )
        }
    }

    /// Matches a transaction string field.
    public enum NameFilter: Equatable, Hashable, Sendable {
        /// Exactly this text.
        case value(String)
        /// The field is NULL.
        case none
    }

    /// Order of transaction numbers (and change IDs within them).
    public enum Order: Equatable, Sendable {
        case ascending, descending
    }

    public var after: Bound?
    public var before: Bound?
    /// Any of these authors (OR-ed); empty means any.
    public var authors: [NameFilter]
    public var contextNames: [NameFilter]
    public var bundleIDs: [NameFilter]
    public var processIDs: [NameFilter]
    /// Entity names; changes (and transactions having such changes) match.
    public var entities: [String]
    /// Whether an entity filter also matches its subentities.
    public var includeSubentities: Bool
    /// Change types; empty means any.
    public var changeTypes: Set<ChangeType>
    /// Objects; changes to any of them (and transactions having such changes) match. Empty means any.
    public var objects: [ObjectReference]
    /// Maximum number of rows (transactions or changes, as asked).
    public var limit: Int?
    public var order: Order
    /// Transactions numbered above this too, besides ``after`` (where a read a page at a time goes on).
    var numberFloor: Int64?

    /// A query; by default every transaction and change, oldest first.
    public init(
        after: Bound? = nil, before: Bound? = nil, authors: [NameFilter] = [], contextNames: [NameFilter] = [],
        bundleIDs: [NameFilter] = [], processIDs: [NameFilter] = [], entities: [String] = [],
        includeSubentities: Bool = false, changeTypes: Set<ChangeType> = [], objects: [ObjectReference] = [],
        limit: Int? = nil, order: Order = .ascending
    ) {
        self.after = after
        self.before = before
        self.authors = authors
        self.contextNames = contextNames
        self.bundleIDs = bundleIDs
        self.processIDs = processIDs
        self.entities = entities
        self.includeSubentities = includeSubentities
        self.changeTypes = changeTypes
        self.objects = objects
        self.limit = limit
        self.order = order
    }
}

/// Why a query cannot run against a store.
public enum QueryError: MessageError, Equatable, Sendable {
    /// An entity name the store does not know.
    case unknownEntity(name: String, known: [String])
    /// A token that names no transaction of this store (error 134501 in Core Data).
    case tokenForOtherStore(token: HistoryToken, storeUUID: String)
    /// A negative limit.
    case invalidLimit(Int)
    /// Entity, change-type or object filters on a purge: purges delete whole transactions.
    case invalidPurgeFilter
    /// An object URI of another store.
    case objectOfOtherStore(object: ObjectReference, storeUUID: String)

    public var message: Message {
        switch self {
        case .unknownEntity(let name, let known):
            let hint =
                known.isEmpty
                ? "" : " (known: \(known.prefix(12).joined(separator: ", "))\(known.count > 12 ? ", …" : ""))"
            return "no entity named '\(name)' in this store\(hint)"
        case .tokenForOtherStore(let token, let uuid):
            return "token \(token) is for another store, not \(uuid) (Core Data error 134501)"
        case .invalidLimit(let n):
            return "limit \(n) is negative"
        case .invalidPurgeFilter:
            return
                """
                a purge deletes whole transactions: \(Control.entityFilter), \(Control.changeTypeFilter) and \
                \(Control.objectFilter) cannot narrow it
                """
        case .objectOfOtherStore(let object, let uuid):
            return
                """
                object \(object.uri(storeUUID: object.storeUUID ?? "")) is of another store, not \(uuid) (give \
                ENTITY/pN to look for its entity and key here)
                """
        }
    }
}

/// A ``QueryError`` with the store it was asked of. (A struct, not an indirect case of
/// ``QueryError``: LeakSanitizer cannot follow an indirect case's tagged pointer and reports
/// every such error alive at exit as a leak.)
public struct StoreQueryError: MessageError, Equatable, Sendable {
    public let path: String
    public let reason: QueryError

    public init(path: String, _ reason: QueryError) {
        self.path = path
        self.reason = reason
    }

    public var message: Message { "\(path): \(reason)" }
}
