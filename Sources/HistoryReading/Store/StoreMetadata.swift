/// What `Z_METADATA` says about a store.
public struct StoreMetadata: Equatable, Sendable {
    /// `Z_UUID`: the store UUID, the key inside history tokens.
    public var uuid: String
    /// `Z_VERSION`.
    public var version: Int64?
    /// The decoded `Z_PLIST` (empty when absent or undecodable).
    public var plist: [String: PlistValue]
    /// Why `Z_PLIST` could not be decoded, if it could not.
    public var plistProblem: String?

    /// `NSStoreType` (normally `SQLite`).
    public var storeType: String? { plist["NSStoreType"]?.stringValue }

    /// `NSPersistenceFrameworkVersion` (for example `973` or `1345`).
    public var frameworkVersion: String? {
        guard let v = plist["NSPersistenceFrameworkVersion"] else { return nil }
        if let s = v.stringValue { return s }
        if let i = v.integerValue { return String(i) }
        return nil
    }

    /// `NSStoreModelVersionIdentifiers`.
    public var modelVersionIdentifiers: [String] {
        plist["NSStoreModelVersionIdentifiers"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// `NSStoreModelVersionHashes`: entity name → hash bytes.
    public var modelVersionHashes: [String: [UInt8]] {
        (plist["NSStoreModelVersionHashes"]?.dictionaryValue ?? [:]).compactMapValues(\.dataValue)
    }
}

/// One row of `Z_PRIMARYKEY`.
public struct CatalogEntity: Equatable, Sendable {
    /// `Z_ENT`: the number `ACHANGE.ZENTITY` refers to.
    public var number: Int64
    /// `Z_NAME`.
    public var name: String
    /// `Z_SUPER`: 0 for a root entity.
    public var superNumber: Int64
    /// `Z_MAX`: the highest primary key handed out.
    public var max: Int64

    /// A `Z_PRIMARYKEY` row.
    public init(number: Int64, name: String, superNumber: Int64, max: Int64) {
        self.number = number
        self.name = name
        self.superNumber = superNumber
        self.max = max
    }
}

/// The entity catalog of `Z_PRIMARYKEY`, with inheritance.
public struct EntityCatalog: Equatable, Sendable {
    /// The model's entities, by number.
    public var entities: [CatalogEntity]
    /// The history bookkeeping rows (`CHANGE`, `TRANSACTION`, `TRANSACTIONSTRING`; numbers ≥ 16000).
    public var historyEntities: [CatalogEntity]

    /// Numbers from this value up are Core Data's own history entities.
    public static let firstHistoryEntityNumber: Int64 = 16000

    /// Builds the catalog from `Z_PRIMARYKEY` rows, separating history bookkeeping rows.
    public init(rows: [CatalogEntity]) {
        let sorted = rows.sorted { $0.number < $1.number }
        entities = sorted.filter { $0.number < Self.firstHistoryEntityNumber }
        historyEntities = sorted.filter { $0.number >= Self.firstHistoryEntityNumber }
        byNumber = Dictionary(sorted.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
    }

    private var byNumber: [Int64: CatalogEntity]

    /// The same entities (numbers, names, superentities), whatever their `Z_MAX`:
    /// every commit raises the `Z_MAX` of history's own rows and of the entities it inserts.
    public func hasSameEntities(as other: EntityCatalog) -> Bool {
        func shape(_ c: EntityCatalog) -> [[String]] {
            (c.entities + c.historyEntities).map { [String($0.number), $0.name, String($0.superNumber)] }
        }
        return shape(self) == shape(other)
    }

    /// The entity with `Z_ENT = number`.
    public func entity(number: Int64) -> CatalogEntity? { byNumber[number] }

    /// The entity called `name`.
    public func entity(named name: String) -> CatalogEntity? { entities.first { $0.name == name } }

    /// The root of `number`'s inheritance chain (itself when it has no superentity).
    public func root(of number: Int64) -> CatalogEntity? {
        var current = byNumber[number]
        var steps = 0
        while let c = current, c.superNumber != 0, let parent = byNumber[c.superNumber], steps < 10_000 {
            current = parent
            steps += 1
        }
        return current
    }

    /// The table holding rows of `number`: `Z` + the root entity's name in capitals (a–z only, as Core Data names it).
    public func rootTableName(of number: Int64) -> String? {
        root(of: number).map { ColumnNames.base($0.name) }
    }

    /// `number` and every entity below it.
    public func descendants(of number: Int64) -> [Int64] {
        var result: [Int64] = [number]
        var frontier: [Int64] = [number]
        while let n = frontier.popLast() {
            for e in entities where e.superNumber == n && !result.contains(e.number) {
                result.append(e.number)
                frontier.append(e.number)
            }
        }
        return result
    }

    /// The `Z_MAX` of a history bookkeeping row (`TRANSACTION`, `CHANGE`, `TRANSACTIONSTRING`).
    public func historyMax(_ name: String) -> Int64? {
        historyEntities.first { $0.name == name }?.max
    }
}

/// The columns of the history tables, read with `PRAGMA table_info`.
public struct HistorySchema: Equatable, Sendable {
    public var transactionColumns: Set<String>
    public var changeColumns: Set<String>
    /// `ZTOMBSTONE0…n` in numeric order.
    public var tombstoneColumns: [String]
    /// Whether `ATRANSACTIONSTRING` exists.
    public var hasStringTable: Bool
    /// Whether `Z_MODELCACHE` exists.
    public var hasModelCacheTable: Bool
}
