/// One page of an SQLite b-tree, read from its bytes as the file format describes it, every
/// offset checked: a damaged page reads as nothing, never as a trap.
struct BTreePage {
    enum Kind {
        case tableInterior, tableLeaf, indexInterior, indexLeaf
    }

    /// A cell of a table leaf: a row.
    struct Row {
        var rowid: Int64
        /// The record's size in bytes, all of it.
        var payloadSize: Int
        /// The part of the record on this page.
        var local: Range<Int>
        /// The first overflow page of the rest (nil when it all fits).
        var overflow: UInt32?
    }

    let kind: Kind
    let bytes: [UInt8]
    /// Where the page header starts: 100 on page 1 (after the database header), else 0.
    private let start: Int
    private let usableSize: Int

    init?(_ bytes: [UInt8], number: UInt32, usableSize: Int) {
        let start = number == 1 ? 100 : 0
        guard bytes.count >= start + 8, usableSize >= 480 else { return nil }
        switch bytes[start] {
        case 0x05: kind = .tableInterior
        case 0x0D: kind = .tableLeaf
        case 0x02: kind = .indexInterior
        case 0x0A: kind = .indexLeaf
        default: return nil
        }
        self.bytes = bytes
        self.start = start
        self.usableSize = min(usableSize, bytes.count)
    }

    var isInterior: Bool { kind == .tableInterior || kind == .indexInterior }
    private var headerSize: Int { isInterior ? 12 : 8 }
    private var cellCount: Int { Int(Self.u16(bytes, start + 3) ?? 0) }

    /// The offsets of its cells, each inside the page.
    private var cellOffsets: [Int] {
        let count = cellCount
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for i in 0..<count {
            guard let offset = Self.u16(bytes, start + headerSize + 2 * i).map(Int.init), offset >= start + headerSize,
                offset < usableSize
            else { continue }
            offsets.append(offset)
        }
        return offsets
    }

    /// An interior page's children, left to right (the right-most pointer last).
    var children: [UInt32] {
        guard isInterior else { return [] }
        var pages = cellOffsets.compactMap { Self.u32(bytes, $0) }.filter { $0 != 0 }
        if let right = Self.u32(bytes, start + 8), right != 0 { pages.append(right) }
        return pages
    }

    /// A table leaf's rows.
    var rows: [Row] {
        guard kind == .tableLeaf else { return [] }
        return cellOffsets.compactMap { offset -> Row? in
            var at = offset
            guard let size = Self.varint(bytes, &at, limit: usableSize), size >= 0, size < 1 << 31,
                let rowid = Self.varint(bytes, &at, limit: usableSize)
            else { return nil }
            let payloadSize = Int(size)
            let local = Self.localSize(payloadSize, usable: usableSize)
            guard at + local <= usableSize else { return nil }
            let overflow = local < payloadSize ? Self.u32(bytes, at + local) : nil
            if local < payloadSize && (overflow == nil || overflow == 0) { return nil }
            return Row(rowid: rowid, payloadSize: payloadSize, local: at..<(at + local), overflow: overflow)
        }
    }

    /// How much of a table leaf's record of `payload` bytes lies on the page (the file format's
    /// formula: all of it up to U − 35, else a part chosen so the rest fills whole overflow pages).
    static func localSize(_ payload: Int, usable: Int) -> Int {
        let maxLocal = usable - 35
        guard payload > maxLocal else { return payload }
        let minLocal = (usable - 12) * 32 / 255 - 23
        let k = minLocal + (payload - minLocal) % (usable - 4)
        return k <= maxLocal ? k : minLocal
    }

    static func u16(_ b: [UInt8], _ at: Int) -> UInt16? {
        guard at >= 0, at + 2 <= b.count else { return nil }
        return UInt16(b[at]) << 8 | UInt16(b[at + 1])
    }

    static func u32(_ b: [UInt8], _ at: Int) -> UInt32? {
        guard at >= 0, at + 4 <= b.count else { return nil }
        return UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    /// SQLite's variable-length integer at `at` (1 to 9 bytes), advancing `at`; nil past `limit`.
    static func varint(_ b: [UInt8], _ at: inout Int, limit: Int) -> Int64? {
        var value: UInt64 = 0
        for i in 0..<9 {
            guard at < limit, at < b.count else { return nil }
            let byte = b[at]
            at += 1
            if i == 8 { return Int64(bitPattern: value << 8 | UInt64(byte)) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return Int64(bitPattern: value) }
        }
        return nil
    }
}
