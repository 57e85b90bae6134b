import GRDB

/// The SQL behind ``HistoryStore``'s reads, built from a ``HistoryQuery`` and
/// the store's actual columns (older stores lack some).
package struct HistorySQL {
    /// Columns before the tombstones in change selects.
    package static let changeFixedColumnCount = 6
    /// Columns of a transaction select's row, its change count the last.
    package static let transactionColumnCount = 12

    private let fieldExpressions: [String]
    /// Per name field (author, context, bundle, process): whether it is looked up by reference
    /// in the string table (``looksUpNames``) instead of joined.
    let namesLookedUp: [Bool]
    /// What transaction selects give for the name fields: each field, or where it is looked
    /// up, its inline column (the name when the string table has none), or NULL.
    private let selectedNames: String
    /// The joins of transaction selects (none where every joined name is looked up).
    private let selectJoins: String
    private let joins: String
    private let transactionConditions: [String]
    private let transactionArguments: [DatabaseValueConvertible?]
    private let changeConditions: [String]
    let changeFilterArguments: StatementArguments
    private let changeArgumentValues: [DatabaseValue]
    private let changeColumns: String
    /// `c.ZCOLUMNS`, or NULL in a store without the column.
    private let columnsExpression: String
    private let queryGenExpression: String
    /// `ZAUTHORTS`, `ZCONTEXTNAMETS`, `ZBUNDLEIDTS`, `ZPROCESSIDTS` (NULL where absent), so a reader can tell a
    /// reference of the wrong type.
    private let referenceExpressions: String
    /// Whether a condition filters by author, context, bundle or process name (and so needs ``joinClause``).
    private let filtersByName: Bool
    private let order: HistoryQuery.Order
    /// The transactions of a scan's matches, for selects of transactions only (with the changes'
    /// own numbers beside it, SQLite would look up every pair).
    private let transactionMatch: String?
    /// The changes a scan matched: of each transaction's changes, only these are read.
    package let matchedChanges: Set<Int64>?
    /// Whether the query selects every transaction and change between two numbers (no date,
    /// name or change filter): then the changes of a run of transactions are best read in one
    /// walk of the index (``changesOfTransactionsSelect()``), where for a few transactions
    /// among many a lookup each is cheaper.
    package let selectsNumberRange: Bool
    /// Whether the change conditions are the lookups of a scan's matches (``ChangeMatches``).
    private var matchesFound: Bool { matchedChanges != nil }
    /// Whether an object filter matched more changes than a list holds: its changes are then read
    /// in one scan of `ACHANGE` in table order (``scannedChangesSelect()``), not through the index
    /// on `ZTRANSACTIONID` with a lookup of every change.
    let scansObjects: Bool

    /// The SQL of `query`. With `matches` (the changes a scan found matching the
    /// query's change filters), those filters become lookups of the changes found.
    /// `scanningObjects`: the query's object filter matched more changes than a list holds (``scansObjects``).
    package init(store: HistoryStore, query: HistoryQuery, matches: ChangeMatches? = nil, scanningObjects: Bool = false)
        throws
    {
        do {
            try self.init(checked: store, query: query, matches: matches, scanningObjects: scanningObjects)
        } catch let error as QueryError {
            throw StoreQueryError(path: store.path, error)
        }
    }

    private init(checked store: HistoryStore, query: HistoryQuery, matches: ChangeMatches?, scanningObjects: Bool)
        throws
    {
        if let limit = query.limit, limit < 0 { throw QueryError.invalidLimit(limit) }
        let schema = store.schema
        order = query.order
        var joins = ""
        var fields: [String] = []
        var references: [String] = []
        var joined: [Bool] = []
        var inlines: [String] = []
        // In TransactionField's order, which expression(for:) relies on.
        for (field, alias) in zip(TransactionField.allCases, ["sa", "sc", "sb", "sp"]) {
            let (ts, inline) = field.columns
            var parts: [String] = []
            let join = schema.hasStringTable && schema.transactionColumns.contains(ts)
            if join {
                joins += " LEFT JOIN ATRANSACTIONSTRING \(alias) ON \(alias).Z_PK = t.\(ts)"
                parts.append("\(alias).ZNAME")
            }
            joined.append(join)
            inlines.append(schema.transactionColumns.contains(inline) ? "t.\(inline)" : "NULL")
            references.append(schema.transactionColumns.contains(ts) ? "t.\(ts)" : "NULL")
            if schema.transactionColumns.contains(inline) { parts.append("t.\(inline)") }
            fields.append(
                parts.isEmpty ? "NULL" : parts.count == 1 ? parts[0] : "COALESCE(\(parts.joined(separator: ", ")))")
        }
        self.joins = joins
        fieldExpressions = fields
        referenceExpressions = references.joined(separator: ", ")
        queryGenExpression = schema.transactionColumns.contains("ZQUERYGEN") ? "length(t.ZQUERYGEN)" : "NULL"

        var txConditions: [String] = []
        var txArgs: [DatabaseValueConvertible?] = []
        func bound(_ b: HistoryQuery.Bound, _ op: String) throws {
            let (condition, argument) = try Self.condition(b, op, store: store, table: "t.")
            txConditions.append(condition)
            txArgs.append(argument)
        }
        if let after = query.after { try bound(after, ">") }
        if let floor = query.numberFloor {
            txConditions.append("t.Z_PK > ?")
            txArgs.append(floor)
        }
        if let before = query.before { try bound(before, "<") }
        for (filters, expr) in zip([query.authors, query.contextNames, query.bundleIDs, query.processIDs], fields)
        where !filters.isEmpty {
            var alternatives: [String] = []
            let values = filters.compactMap { f -> String? in if case .value(let v) = f { return v } else { return nil }
            }
            if !values.isEmpty {
                alternatives.append(
                    "\(expr) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))")
                txArgs += values.map { $0 as DatabaseValueConvertible? }
            }
            if filters.contains(.none) { alternatives.append("\(expr) IS NULL") }
            txConditions.append("(" + alternatives.joined(separator: " OR ") + ")")
        }
        filtersByName =
            !(query.authors.isEmpty && query.contextNames.isEmpty && query.bundleIDs.isEmpty
            && query.processIDs.isEmpty)
        // COALESCE(string, inline) is the looked-up string when there is one, else the inline column.
        let lookUp = !filtersByName && joined.contains(true)
        namesLookedUp = joined.map { $0 && lookUp }
        selectedNames = zip(fields, zip(inlines, namesLookedUp)).map { $1.1 ? $1.0 : $0 }.joined(separator: ", ")
        selectJoins = lookUp ? "" : joins

        var chConditions: [String] = []
        var chArgs: [DatabaseValueConvertible?] = []
        for object in query.objects {
            if let uuid = object.storeUUID, uuid.uppercased() != store.storeUUID.uppercased() {
                throw QueryError.objectOfOtherStore(object: object, storeUUID: store.storeUUID)
            }
            guard store.catalog.entity(named: object.entityName) != nil else {
                throw QueryError.unknownEntity(name: object.entityName, known: store.catalog.entities.map(\.name))
            }
        }
        if let matches {
            chConditions.append("c.Z_PK IN (\(Self.list(matches.changeIDs)))")
        }
        if matches == nil, !query.objects.isEmpty {
            // Keys are unique within the root entity's table: an entity's name stands for its subentities too.
            let alternatives = query.objects.map { object -> String in
                let entity =
                    store.catalog.entity(named: object.entityName).map { store.catalog.descendants(of: $0.number) }
                    ?? []
                chArgs.append(object.primaryKey)
                chArgs += entity.map { $0 as DatabaseValueConvertible? }
                return
                    """
                    (c.ZENTITYPK = ? AND c.ZENTITY IN \
                    (\(Array(repeating: "?", count: entity.count).joined(separator: ", "))))
                    """
            }
            chConditions.append(
                alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " OR ") + ")")
        }
        if matches == nil, !query.entities.isEmpty {
            let numbers = try store.catalog.numbers(of: query.entities, includingSubentities: query.includeSubentities)
            chConditions.append("c.ZENTITY IN (\(Array(repeating: "?", count: numbers.count).joined(separator: ", ")))")
            chArgs += numbers.map { $0 as DatabaseValueConvertible? }
        }
        if matches == nil, !query.changeTypes.isEmpty {
            let raws = query.changeTypes.map(\.rawValue).sorted()
            chConditions.append(
                "c.ZCHANGETYPE IN (\(Array(repeating: "?", count: raws.count).joined(separator: ", ")))")
            chArgs += raws.map { $0 as DatabaseValueConvertible? }
        }
        transactionConditions = txConditions
        let dated = [query.after, query.before].contains { if case .date? = $0 { return true } else { return false } }
        selectsNumberRange = !dated && !filtersByName && chConditions.isEmpty && matches == nil
        transactionArguments = txArgs
        // A scan's matches stand for every change condition: transactions need no EXISTS.
        changeConditions = chConditions
        scansObjects = scanningObjects && matches == nil && !query.objects.isEmpty
        transactionMatch = matches.map { "t.Z_PK IN (\(Self.list($0.transactionNumbers)))" }
        matchedChanges = matches.map { Set($0.changeIDs) }
        changeFilterArguments = StatementArguments(chArgs)
        changeArgumentValues = chArgs.map { $0?.databaseValue ?? .null }
        let columnsExpr = schema.changeColumns.contains("ZCOLUMNS") ? "c.ZCOLUMNS" : "NULL"
        columnsExpression = columnsExpr
        changeColumns =
            (["c.Z_PK", "c.ZTRANSACTIONID", "c.ZCHANGETYPE", "c.ZENTITY", "c.ZENTITYPK", columnsExpr]
            + schema.tombstoneColumns.map { "c.\($0)" }).joined(separator: ", ")
    }

    /// The SQL expression resolving `field` (string table first, then inline text).
    package func expression(for field: TransactionField) -> String {
        switch field {
        case .author: return fieldExpressions[0]
        case .contextName: return fieldExpressions[1]
        case .bundleID: return fieldExpressions[2]
        case .processID: return fieldExpressions[3]
        }
    }

    /// The joins the field expressions need, for selects from `ATRANSACTION t`.
    package var joinClause: String { joins }

    /// Arguments for ``transactionSelect(limit:)`` and ``changeSelect(limit:)``
    /// (both list transaction conditions before change conditions).
    package var arguments: StatementArguments {
        StatementArguments(transactionArguments) + changeFilterArguments
    }

    /// ``arguments`` as plain values, to keep beside the SQL.
    package var argumentValues: [DatabaseValue] {
        transactionArguments.map { $0?.databaseValue ?? .null } + changeArgumentValues
    }

    private var direction: String { order == .ascending ? "ASC" : "DESC" }

    private func limitClause(_ limit: Int?) -> String {
        limit.map { " LIMIT \($0)" } ?? ""
    }

    /// Conditions on `ATRANSACTION t`: the transaction filters, and for change
    /// filters the existence of a matching change.
    private var transactionWhere: [String] {
        var conditions = transactionConditions + (transactionMatch.map { [$0] } ?? [])
        if !changeConditions.isEmpty && !matchesFound {
            conditions.append(
                "EXISTS (SELECT 1 FROM ACHANGE c WHERE c.ZTRANSACTIONID = t.Z_PK AND "
                    + changeConditions.joined(separator: " AND ") + ")")
        }
        return conditions
    }

    /// Matching transactions with their fields and change counts (NULL when not `counted`:
    /// the reader counts them). `numbered`: only those numbered between two more arguments,
    /// after ``arguments``. Names in ``namesLookedUp`` are the reader's to look up.
    package func transactionSelect(limit: Int?, numbered: Bool = false, counted: Bool = true) -> String {
        func changeCount(_ number: String) -> String { counted ? Self.changeCount(of: number) : "NULL" }
        // With a scan's list of transactions, the list drives the read: SQLite would rather walk
        // every transaction between the bounds and test each against a long list (+ stops it).
        let conditions =
            transactionWhere
            + (numbered ? [transactionMatch == nil ? "t.Z_PK BETWEEN ? AND ?" : "+t.Z_PK BETWEEN ? AND ?"] : [])
        let from = "FROM ATRANSACTION t\(selectJoins)\(whereClause(conditions)) ORDER BY t.Z_PK \(direction)"
        guard let limit else { return "SELECT \(transactionColumns), \(changeCount("t.Z_PK")) \(from)" }
        // With a limit, SQLite may sort the matches (through the timestamp index) and would
        // count the changes of every one of them first: count only those that are kept.
        return
            """
            SELECT x.*, \(changeCount("x.number")) FROM (SELECT \(transactionColumns) \(from) LIMIT \(limit)) x \
            ORDER BY x.number \(direction)
            """
    }

    /// A transaction select's columns before its change count (the row's last column).
    private var transactionColumns: String {
        "t.Z_PK AS number, t.ZTIMESTAMP, \(selectedNames), \(queryGenExpression), \(referenceExpressions)"
    }

    /// The number of changes of the transaction numbered `number` (an expression), through the
    /// index on `ZTRANSACTIONID`.
    private static func changeCount(of number: String) -> String {
        "(SELECT COUNT(*) FROM ACHANGE c WHERE c.ZTRANSACTIONID = \(number))"
    }

    /// Whether transaction selects leave names to be looked up by string reference (the
    /// store has a string table, and no condition filters by name): a lookup per name
    /// costs less than a join per transaction.
    package var looksUpNames: Bool { namesLookedUp.contains(true) }

    /// A string-table name by reference (one argument), as the joins select it.
    package static let nameLookup = "SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = ?"

    /// The numbers of matching transactions, as a subquery (uses ``arguments``).
    package func matchingNumbers() -> String {
        "SELECT t.Z_PK FROM ATRANSACTION t\(joins)\(whereClause(transactionWhere))"
    }

    /// The transaction conditions as one boolean expression on `ATRANSACTION t`
    /// with the joins it needs (uses ``arguments``); nil when every transaction matches.
    /// SQLite does not drop unused LEFT JOINs, and each costs a lookup per row.
    var transactionFilter: (expression: String, joins: String)? {
        transactionWhere.isEmpty ? nil : (transactionWhere.joined(separator: " AND "), filtersByName ? joins : "")
    }

    /// A row when any transaction matches (uses ``arguments``). With change conditions, from a scan
    /// of `ACHANGE` in table order, each match's transaction looked up, ending at the first found.
    func anyMatchSelect() -> String {
        guard !changeConditions.isEmpty, !matchesFound else {
            return "SELECT 1 FROM ATRANSACTION t\(joins)\(whereClause(transactionWhere)) LIMIT 1"
        }
        // CROSS JOIN: the changes are the outer loop (SQLite might otherwise scan them per transaction).
        return
            """
            SELECT 1 FROM ACHANGE c NOT INDEXED CROSS JOIN ATRANSACTION t ON t.Z_PK = \
            c.ZTRANSACTIONID\(filtersByName ? joins : "")
            """
                + "\(whereClause(transactionConditions + changeConditions)) LIMIT 1"
    }

    /// Matching transactions counted.
    func transactionCount() -> String {
        "SELECT COUNT(*) FROM ATRANSACTION t\(joins)\(whereClause(transactionWhere))"
    }

    func changeSelect(limit: Int?) -> String {
        let changes = scansObjects ? "ACHANGE c NOT INDEXED" : "ACHANGE c"
        let from =
            transactionConditions.isEmpty
            ? changes : "\(changes) JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID\(joins)"
        // Transaction conditions come first so the arguments line up with `arguments`.
        return "SELECT \(changeColumns) FROM \(from)\(whereClause(transactionConditions + changeConditions)) "
            + "ORDER BY c.ZTRANSACTIONID \(direction), c.Z_PK \(direction)\(limitClause(limit))"
    }

    /// The changes matching the change conditions, by transaction then change number, from one
    /// scan of `ACHANGE` in table order (SQLite's sorter orders them, spilling to disk when they
    /// are many): for ``scansObjects``. Uses ``changeFilterArguments``. Without `whole`, only each
    /// change's number and transaction number (the rows' first two columns either way).
    func scannedChangesSelect(whole: Bool = true) -> String {
        let columns = whole ? changeColumns : "c.Z_PK, c.ZTRANSACTIONID"
        return
            """
            SELECT \(columns) FROM ACHANGE c NOT INDEXED\(whereClause(changeConditions)) ORDER BY \
            c.ZTRANSACTIONID ASC, c.Z_PK ASC
            """
    }

    /// Whether the query has no transaction conditions (its changes are those of the change
    /// table alone, transaction or not).
    var selectsChangesAlone: Bool { transactionConditions.isEmpty }

    /// Whether the query has change conditions of its own (not a scan's matches): a read in chunks
    /// then reads each chunk's matching changes through the index and walks their transactions
    /// beside them (``changesInRangeSelect()``).
    var walksChanges: Bool { !changeConditions.isEmpty && !matchesFound }

    /// The changes matching the change conditions of the transactions numbered between two
    /// arguments (after ``changeFilterArguments``), by transaction then change number, through
    /// `ACHANGE`'s index on `ZTRANSACTIONID` (in its order: nothing to sort).
    /// With `afterFirst`, those numbered after the first argument, up to the second (so that a
    /// change whose number is a REAL between two ranges belongs to one of them).
    func changesInRangeSelect(afterFirst: Bool = false) -> String {
        let range = afterFirst ? "c.ZTRANSACTIONID > ? AND c.ZTRANSACTIONID <= ?" : "c.ZTRANSACTIONID BETWEEN ? AND ?"
        return
            """
            SELECT \(changeColumns) FROM ACHANGE c\(whereClause(changeConditions + [range])) ORDER BY \
            c.ZTRANSACTIONID ASC, c.Z_PK ASC
            """
    }

    /// The transactions matching the transaction conditions (not the change conditions), from
    /// a number on, ascending, without their change counts: a walk down `ATRANSACTION` beside
    /// ``scannedChangesSelect()``. Uses ``transactionWalkArguments(from:)``.
    func transactionWalkSelect() -> String {
        return
            """
            SELECT \(transactionColumns), NULL FROM ATRANSACTION \
            t\(selectJoins)\(whereClause(transactionConditions + ["t.Z_PK >= ?"])) ORDER BY t.Z_PK ASC
            """
    }

    /// The rows of `rows` (a select with a column `last`, a transaction number), in `order`, each
    /// after the columns of its transaction as ``transactionSelect(limit:numbered:counted:)``
    /// gives them, change count included: one sorted read instead of a lookup per row. A row whose
    /// transaction is gone has NULL there. For a query without transaction conditions (no arguments).
    package func rowsWithTransactionSelect(_ rows: String, order: String) -> String {
        return
            """
            SELECT \(transactionColumns), \(Self.changeCount(of: "t.Z_PK")), r.* FROM (\(rows)) r LEFT JOIN \
            ATRANSACTION t ON t.Z_PK = r.last\(selectJoins) ORDER BY \(order)
            """
    }

    /// Every transaction numbered between two arguments, ascending, without its change count:
    /// the transactions of a chunk of changes, read beside them. For a query without
    /// transaction conditions (``selectsChangesAlone``), whose names it selects as
    /// ``transactionSelect(limit:numbered:counted:)`` does.
    func transactionsInRangeSelect() -> String {
        """
        SELECT \(transactionColumns), NULL FROM ATRANSACTION t\(selectJoins) WHERE t.Z_PK BETWEEN ? AND ? \
        ORDER BY t.Z_PK ASC
        """
    }

    /// The arguments of ``transactionWalkSelect()`` from transaction `number` on.
    func transactionWalkArguments(from number: Int64) -> StatementArguments {
        StatementArguments(transactionArguments) + [number]
    }

    /// Matching changes of the transactions numbered `low…high` by object (entity,
    /// key), then change number: entity, key, type, ZCOLUMNS and transaction number.
    /// Uses ``arguments``.
    package func changesByObjectSelect(low: Int64, high: Int64) -> String {
        let from =
            transactionConditions.isEmpty
            ? "ACHANGE c" : "ACHANGE c JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID\(joins)"
        let range = "c.ZTRANSACTIONID BETWEEN \(low) AND \(high)"
        return "SELECT c.ZENTITY, c.ZENTITYPK, c.ZCHANGETYPE, \(columnsExpression), c.ZTRANSACTIONID FROM \(from)"
            + whereClause(transactionConditions + changeConditions + [range])
            + " ORDER BY c.ZENTITY, c.ZENTITYPK, c.Z_PK"
    }

    /// Changes of one transaction (its number is the last argument, after ``changeFilterArguments``).
    /// With a scan's matches, every change of the transaction: the reader keeps those in
    /// ``matchedChanges`` (SQLite would build the list anew for each transaction).
    package func changesOfTransactionSelect() -> String {
        """
        SELECT \(changeColumns) FROM ACHANGE \
        c\(whereClause((matchesFound ? [] : changeConditions) + ["c.ZTRANSACTIONID = ?"])) ORDER BY c.Z_PK ASC
        """
    }

    /// Every change of the transactions numbered between two arguments, by transaction number
    /// then change number (through `ACHANGE`'s index on `ZTRANSACTIONID`, in its order): the
    /// changes of a query that ``selectsNumberRange``.
    package func changesOfTransactionsSelect() -> String {
        """
        SELECT \(changeColumns) FROM ACHANGE c WHERE c.ZTRANSACTIONID BETWEEN ? AND ? ORDER BY c.ZTRANSACTIONID \
        ASC, c.Z_PK ASC
        """
    }

    /// At most `limit` of the changes ``changesOfTransactionSelect()`` selects, those after a change ID
    /// when `after` (see ``changesOfTransactionPageArguments(_:after:)``). Every change condition is in
    /// the select (a scan's matches as their list), so a page needs no filtering after it.
    func changesOfTransactionPageSelect(limit: Int, after: Bool) -> String {
        let conditions = changeConditions + ["c.ZTRANSACTIONID = ?"] + (after ? ["c.Z_PK > ?"] : [])
        return "SELECT \(changeColumns) FROM ACHANGE c\(whereClause(conditions)) ORDER BY c.Z_PK ASC LIMIT \(limit)"
    }

    /// The arguments of ``changesOfTransactionPageSelect(limit:after:)`` for transaction `number`'s changes after
    /// `after`.
    func changesOfTransactionPageArguments(_ number: Int64, after: Int64?) -> StatementArguments {
        var args = changeFilterArguments
        args += [number]
        if let after { args += [after] }
        return args
    }

    /// The arguments of ``changesOfTransactionSelect()`` for transaction `number`.
    package func changesOfTransactionArguments(_ number: Int64) -> StatementArguments {
        var args = matchesFound ? StatementArguments() : changeFilterArguments
        args += [number]
        return args
    }

    /// The changes matching the change conditions (entity, type, object) and
    /// their transactions, by a scan of `ACHANGE` alone (uses ``changeFilterArguments``
    /// and then the bounds of the change numbers to read); nil without change conditions.
    func changeMatchSelect() -> String? {
        guard !changeConditions.isEmpty, !matchesFound else { return nil }
        // NOT INDEXED: a scan in table order reads each page once; SQLite would otherwise
        // walk the transaction index and look every change up.
        return "SELECT c.Z_PK, c.ZTRANSACTIONID FROM ACHANGE c NOT INDEXED WHERE "
            + changeConditions.joined(separator: " AND ") + " AND c.Z_PK BETWEEN ? AND ?"
    }

    private static func list(_ numbers: [Int64]) -> String {
        numbers.map(String.init).joined(separator: ", ")
    }

    private func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }
}

extension HistorySQL {
    /// The condition `op` (`>` for after, `<` for before) a bound puts on the transactions of
    /// `table` (a prefix such as `t.`, or none), and its argument; a token names this store's number.
    static func condition(_ bound: HistoryQuery.Bound, _ op: String, store: HistoryStore, table: String = "") throws
        -> (String, DatabaseValueConvertible)
    {
        switch bound {
        case .date(let d):
            return ("\(table)ZTIMESTAMP \(op) ?", d)
        case .transaction(let n):
            return ("\(table)Z_PK \(op) ?", n)
        case .token(let token):
            guard let n = token.transactionNumber(forStore: store.storeUUID) else {
                throw QueryError.tokenForOtherStore(token: token, storeUUID: store.storeUUID)
            }
            return ("\(table)Z_PK \(op) ?", n)
        }
    }
}
