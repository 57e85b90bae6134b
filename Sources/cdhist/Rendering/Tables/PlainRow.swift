/// A table row whose cells are plain text, kept as bytes: printable ASCII (no control character,
/// no `{`), each at most ``TableLayout/longestCell`` long, so a table shows each as it is (what
/// ``TableLayout/clean(_:)`` leaves alone), a character per byte and a cell per character.
/// Rows of millions of changes are written from it without a String per cell
/// (``TableRowWriter/write(_:orCells:to:)``). Reused from row to row: ``reset()``, then each
/// cell's bytes and ``endCell(known:)``.
struct PlainRow {
    /// The cells' bytes, one after another.
    private(set) var bytes: [UInt8] = []
    /// Where each cell ends in ``bytes``.
    private(set) var ends: [Int] = []
    /// False once a cell was not plain: the row is then written from its cells as text.
    private(set) var isPlain = true
    /// Room for the lines of the row's wrapped cells (and where each cell's lines begin), and
    /// for a line under it, while it is written (``TableRowWriter``): kept from row to row.
    var lines: [Range<Int>] = []
    var firsts: [Int] = []
    var below: [UInt8] = []

    init() {
        bytes.reserveCapacity(1024)
        ends.reserveCapacity(16)
    }

    var count: Int { ends.count }

    /// Cell `i`'s bytes (empty past the last cell).
    func cell(_ i: Int) -> Range<Int> {
        guard i < ends.count else { return 0..<0 }
        return (i == 0 ? 0 : ends[i - 1])..<ends[i]
    }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        isPlain = true
    }

    /// Ends the cell whose bytes were appended since the last, and checks it is plain (only its
    /// length when its bytes are `known` to be: names checked once).
    mutating func endCell(known: Bool = false) {
        let cell = bytes[(ends.last ?? 0)...]
        if isPlain { isPlain = known ? cell.count <= TableLayout.longestCell : Self.isPlain(cell) }
        ends.append(bytes.count)
    }

    /// A cell of a number.
    mutating func appendCell(_ number: Int64) {
        JSONValue.writeInt(number, to: &bytes)
        ends.append(bytes.count)
    }

    /// A cell of bytes known to be plain (a store's name checked once), at most ``TableLayout/longestCell`` long.
    mutating func appendCell(plain text: some Collection<UInt8>) {
        bytes += text
        ends.append(bytes.count)
    }

    /// A cell of plain bytes `write` writes through a cursor into `room` bytes made beforehand
    /// (no check per piece), at most ``TableLayout/longestCell`` long to stay plain.
    mutating func appendCell(room: Int, _ write: (inout ByteCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
            var cursor = ByteCursor(buffer)
            write(&cursor)
            bytes.append(contentsOf: cursor.written)
        }
        endCell(known: true)
    }

    mutating func append(contentsOf text: some Collection<UInt8>) { bytes += text }

    /// The row holds a cell that is not plain (it is written from its cells as text).
    mutating func markNotPlain() { isPlain = false }

    /// A byte a table shows as it is, one cell wide: printable ASCII but `{` (which may open a
    /// digest the table shortens).
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "{")
    }

    /// Whether every byte of `text` ``isPlain(_:)`` and a table shows it whole.
    static func isPlain(_ text: some Collection<UInt8>) -> Bool {
        text.count <= TableLayout.longestCell && text.allSatisfy { isPlain($0) }
    }
}
