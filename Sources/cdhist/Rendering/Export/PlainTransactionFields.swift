import HistoryKit

/// A plain transaction's fields (``PlainTransaction``), as NDJSON members, as CSV cells and as
/// a table's cells, byte for byte what ``HistoryPresenter`` and ``CSVExport`` write for the same
/// ``Transaction``. Its names are formatted again only when they differ from the
/// transaction's before (consecutive transactions mostly share them), the store's ID once:
/// per transaction only its number, time and counts are. One per chunk of an export.
struct PlainTransactionFields {
    let presenter: HistoryPresenter
    let csvRaw: Bool
    /// `,"storeID":"…","token":{"…":` (the number and the rest follow).
    private let storeAndToken: [UInt8]
    /// `,STOREID,"{""STOREID"":` as CSV cells: a transaction list's cells after its names, up to
    /// the number in its token.
    private let csvStoreAndToken: [UInt8]
    /// The names last formatted, and their bytes: as JSON members, and as CSV cells each after a comma.
    private var jsonPlaces: PlainTransaction.NamePlaces?
    private var jsonNames: [UInt8] = []
    private var csvPlaces: PlainTransaction.NamePlaces?
    private var csvNames: [UInt8] = []
    /// As a table shows them (`-` for none); nil for a name not shown as it is.
    private var tablePlaces: PlainTransaction.NamePlaces?
    private var tableNames: [[UInt8]?] = []

    init(storeUUID: String, presenter: HistoryPresenter, csvRaw: Bool) {
        self.presenter = presenter
        self.csvRaw = csvRaw
        var s = JSONBytes()
        s.beginObject()
        s.member("storeID", storeUUID)
        s.key("token")
        s.beginObject()
        s.key(named: storeUUID)
        storeAndToken = [UInt8(ascii: ",")] + s.bytes.dropFirst()
        // The token's cell is JSON, quoted: its quotes doubled, the number and `}` as they are.
        var token = JSONBytes()
        token.beginObject()
        token.key(named: storeUUID)
        var cells: [UInt8] = [UInt8(ascii: ",")]
        CSV.field(storeUUID, to: &cells, raw: csvRaw)
        cells.append(UInt8(ascii: ","))
        CSV.field(String(decoding: token.bytes + Array("0}".utf8), as: UTF8.self), to: &cells, raw: csvRaw)
        csvStoreAndToken = Array(cells.dropLast(Self.csvTokenEnd.count + 1))
    }

    /// What ends a token's CSV cell after its number.
    private static let csvTokenEnd = Array("}\"".utf8)

    /// The transaction's object up to its changes, as ``HistoryPresenter`` writes its members.
    mutating func writeJSON(_ tx: PlainTransaction, format: String?, to s: inout JSONBytes) {
        s.beginObject()
        if let format { s.member("format", format) }
        s.member("transactionNumber", tx.number)
        presenter.writeTime(tx.timestamp, to: &s)
        if jsonPlaces != tx.names {
            var members = JSONBytes()
            members.beginObject()
            presenter.writeNames(
                author: tx.author, contextName: tx.contextName, bundleID: tx.bundleID, processID: tx.processID,
                to: &members)
            jsonNames = Array(members.bytes.dropFirst())
            jsonPlaces = tx.names
        }
        // The members from the names on, appended as they are (not through a closure, which would hold the buffers).
        s.compactValue(jsonNames)
        s.bytes += storeAndToken
        JSONValue.writeInt(tx.number, to: &s.bytes)
        s.bytes += #"},"changeCount":"#.utf8
        JSONValue.writeInt(Int64(tx.changeCount), to: &s.bytes)
        s.bytes += #","queryGenerationLength":"#.utf8
        if let length = tx.queryGenerationLength {
            JSONValue.writeInt(Int64(length), to: &s.bytes)
        } else {
            s.bytes += JSONValue.nullBytes
        }
    }

    /// The transaction's CSV cells, as ``CSVExport`` writes them before a change's.
    mutating func writeCSV(_ tx: PlainTransaction, to out: inout [UInt8]) {
        CSVExport.writeNumberAndTime(tx.number, tx.timestamp, time: presenter.time, to: &out)
        if csvPlaces != tx.names {
            csvNames.removeAll(keepingCapacity: true)
            CSVExport.writeNames([tx.author, tx.contextName, tx.bundleID, tx.processID], raw: csvRaw, to: &csvNames)
            csvPlaces = tx.names
        }
        out += csvNames
    }

    /// The transaction's row in a transaction list's CSV (without its line's end), as
    /// ``CSVRecord`` writes ``HistoryPresenter``'s record of it.
    mutating func writeListCSV(_ tx: PlainTransaction, to out: inout [UInt8]) {
        writeCSV(tx, to: &out)
        out += csvStoreAndToken
        JSONValue.writeInt(tx.number, to: &out)
        out += Self.csvTokenEnd
        out.append(UInt8(ascii: ","))
        JSONValue.writeInt(Int64(tx.changeCount), to: &out)
        out.append(UInt8(ascii: ","))
        if let length = tx.queryGenerationLength { JSONValue.writeInt(Int64(length), to: &out) }
        // No warnings.
        out.append(UInt8(ascii: ","))
    }

    /// The transaction's cells in a transaction table (number, time, author, context, bundle,
    /// process, changes), as ``HistoryPresenter`` makes them; the row is not plain
    /// (``PlainRow/isPlain``) when a name is not shown as it is.
    mutating func tableCells(_ tx: PlainTransaction, to row: inout PlainRow) {
        row.appendCell(tx.number)
        guard presenter.time.display(tx.timestamp, { row.append(contentsOf: $0) }) != nil else {
            return row.markNotPlain()
        }
        row.endCell(known: true)
        if tablePlaces != tx.names {
            tableNames = [tx.author, tx.contextName, tx.bundleID, tx.processID].map { name in
                let shown = Array((name ?? "-").utf8)
                return PlainRow.isPlain(shown) ? shown : nil
            }
            tablePlaces = tx.names
        }
        for name in tableNames {
            guard let name else { return row.markNotPlain() }
            row.appendCell(plain: name)
        }
        row.appendCell(Int64(tx.changeCount))
    }
}
