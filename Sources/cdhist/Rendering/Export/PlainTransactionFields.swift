import HistoryKit

/// A plain transaction's fields (``PlainTransaction``), as NDJSON members and as CSV cells,
/// byte for byte what ``HistoryPresenter`` and ``CSVExport`` write for the same
/// ``Transaction``. Its names are formatted again only when they differ from the
/// transaction's before (consecutive transactions mostly share them), the store's ID once:
/// per transaction only its number, time and counts are. One per chunk of an export.
struct PlainTransactionFields {
    let time: TimeFormatter
    let csvRaw: Bool
    /// `,"storeID":"…","token":{"…":` (the number and the rest follow).
    private let storeAndToken: [UInt8]
    /// The names last formatted, and their bytes: as JSON members, and as CSV cells each after a comma.
    private var jsonPlaces: PlainTransaction.NamePlaces?
    private var jsonNames: [UInt8] = []
    private var csvPlaces: PlainTransaction.NamePlaces?
    private var csvNames: [UInt8] = []

    init(storeUUID: String, time: TimeFormatter, csvRaw: Bool) {
        self.time = time
        self.csvRaw = csvRaw
        var s = JSONBytes()
        s.beginObject()
        s.member("storeID", storeUUID)
        s.key("token")
        s.beginObject()
        s.key(named: storeUUID)
        storeAndToken = [UInt8(ascii: ",")] + s.bytes.dropFirst()
    }

    /// The transaction's object up to its changes, as ``HistoryPresenter`` writes its members.
    mutating func writeJSON(_ tx: PlainTransaction, format: String?, to s: inout JSONBytes) {
        s.beginObject()
        if let format { s.member("format", format) }
        s.member("transactionNumber", tx.number)
        s.key("timestamp")
        time.iso(tx.timestamp) { s.asciiString($0) }
        s.member("cocoaTimestamp", tx.timestamp)
        if jsonPlaces != tx.names {
            var members = JSONBytes()
            members.beginObject()
            members.member("author", tx.author)
            members.member("contextName", tx.contextName)
            members.member("bundleID", tx.bundleID)
            members.member("processID", tx.processID)
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
        if let length = tx.queryGenerationLength { JSONValue.writeInt(Int64(length), to: &s.bytes) } else { s.bytes += JSONValue.nullBytes }
    }

    /// The transaction's CSV cells, as ``CSVExport`` writes them before a change's.
    mutating func writeCSV(_ tx: PlainTransaction, to out: inout [UInt8]) {
        let comma = UInt8(ascii: ",")
        JSONValue.writeInt(tx.number, to: &out)
        out.append(comma)
        time.iso(tx.timestamp) { out.append(contentsOf: $0) }
        out.append(comma)
        JSONValue.writeDouble(tx.timestamp, to: &out)
        if csvPlaces != tx.names {
            csvNames.removeAll(keepingCapacity: true)
            for name in [tx.author, tx.contextName, tx.bundleID, tx.processID] {
                csvNames.append(comma)
                if let name { CSV.field(name, to: &csvNames, raw: csvRaw) }
            }
            csvPlaces = tx.names
        }
        out += csvNames
    }
}
