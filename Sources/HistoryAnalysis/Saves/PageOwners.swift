/// Which table each b-tree page belongs to at a state: the tables of `sqlite_master` and, per
/// page, the table whose b-tree holds it. Built by walking each table's interior pages (a leaf
/// is known from its parent: only one leaf per level is read, to learn that the level is the
/// leaves'), then kept up to date commit by commit from the pages a commit wrote.
struct PageOwners {
    /// A table: its name and root page.
    struct Table: Equatable {
        var name: String
        var root: UInt32
    }

    private(set) var tables: [Table] = []
    /// Per page number, the index of its table in ``tables`` plus one (0: none known).
    private var owner: [Int32] = []
    /// The pages of `sqlite_master`'s b-tree (a change to one can change the schema).
    private(set) var schemaPages = Set<UInt32>()

    /// The owners at `reader`'s state.
    init(_ reader: PageReader) {
        rebuild(reader)
    }

    /// The table page `n` belongs to.
    func table(of n: UInt32) -> Table? {
        let i = Int(n)
        guard i < owner.count, owner[i] > 0 else { return nil }
        return tables[Int(owner[i]) - 1]
    }

    /// Reads `sqlite_master` and walks every table again.
    mutating func rebuild(_ reader: PageReader) {
        owner = []
        schemaPages = []
        tables = []
        var schema: [Table] = []
        var claimed = Set<UInt32>()
        for (_, record) in Self.rows(root: 1, reader: reader, pages: &schemaPages, claimed: &claimed) {
            let columns = RowRecord.columns(record)
            guard columns.count >= 4, case .text(let type)? = columns[0], type == "table",
                case .text(let name)? = columns[1],
                case .integer(let root)? = columns[3], root > 0, root <= Int64(UInt32.max)
            else { continue }
            schema.append(Table(name: name, root: UInt32(root)))
        }
        tables = schema
        for (i, table) in tables.enumerated() {
            walk(from: table.root, table: Int32(i + 1), reader: reader, changed: nil)
        }
    }

    /// Brings the owners to `reader`'s state after a commit that wrote `written`. The pages of
    /// interior pages that changed are given their table again, going down into those that changed.
    mutating func update(written: Set<UInt32>, ownersBefore: [UInt32: Table], reader: PageReader) {
        if !written.isDisjoint(with: schemaPages) || written.contains(1) {
            rebuild(reader)
            return
        }
        for (i, table) in tables.enumerated() {
            let index = Int32(i + 1)
            // The table's root, and its interior pages that changed while staying its interior pages.
            var starts: [UInt32] = written.contains(table.root) ? [table.root] : []
            for page in written where page != table.root && ownersBefore[page] == table {
                if let bytes = reader.page(page),
                    let node = BTreePage(bytes, number: page, usableSize: reader.usableSize), node.isInterior
                {
                    starts.append(page)
                }
            }
            for start in starts { walk(from: start, table: index, reader: reader, changed: written) }
        }
    }

    /// Gives `table` to `start` and everything below it; with `changed`, goes down only into the
    /// interior pages among `changed` (the others' subtrees are as they were).
    private mutating func walk(from start: UInt32, table: Int32, reader: PageReader, changed: Set<UInt32>?) {
        var queue: [UInt32] = [start]
        var seen = Set<UInt32>()
        set(start, table, limit: reader.pageLimit)
        while let page = queue.popLast() {
            guard seen.insert(page).inserted, seen.count < 10_000_000, let bytes = reader.page(page),
                let node = BTreePage(bytes, number: page, usableSize: reader.usableSize), node.isInterior
            else { continue }
            let children = node.children
            for child in children { set(child, table, limit: reader.pageLimit) }
            guard let first = children.first else { continue }
            // All children are on one level: interior pages or leaves alike.
            guard let probe = reader.page(first),
                let firstNode = BTreePage(probe, number: first, usableSize: reader.usableSize),
                firstNode.isInterior
            else { continue }
            queue += children.filter { changed?.contains($0) ?? true }
        }
    }

    private mutating func set(_ page: UInt32, _ table: Int32, limit: UInt32) {
        let i = Int(page)
        // A page number past every state's last page is damage, never a page.
        guard page <= limit else { return }
        if i >= owner.count { owner += Array(repeating: 0, count: i - owner.count + 1) }
        owner[i] = table
    }

    /// Every row of the table b-tree rooted at `root` at `reader`'s state, with the pages of the tree.
    static func rows(root: UInt32, reader: PageReader, pages: inout Set<UInt32>, claimed: inout Set<UInt32>) -> [(
        rowid: Int64, record: [UInt8]
    )] {
        var found: [(rowid: Int64, record: [UInt8])] = []
        var queue: [UInt32] = [root]
        while let page = queue.popLast() {
            guard pages.insert(page).inserted, pages.count < 100_000, let bytes = reader.page(page),
                let node = BTreePage(bytes, number: page, usableSize: reader.usableSize)
            else { continue }
            switch node.kind {
            case .tableInterior: queue += node.children.reversed()
            case .tableLeaf:
                for row in node.rows {
                    if let record = RowRecord.payload(row, on: node, reader: reader, claimed: &claimed) {
                        found.append((row.rowid, record))
                    }
                }
            default: continue
            }
        }
        return found
    }
}
