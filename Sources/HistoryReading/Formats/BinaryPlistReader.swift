import Foundation

/// Parses `bplist00` data into ``PlistValue``s, keeping keyed-archive UIDs.
///
/// Every offset, count and reference is checked against the data, so damaged
/// or hostile input produces ``PlistError/malformed(_:)``, never a trap.
/// Shared objects are parsed once; reference cycles are rejected.
struct BinaryPlistReader {
    private let bytes: [UInt8]
    private let offsetSize: Int
    private let refSize: Int
    private let objectCount: Int
    private let topObject: Int
    private let offsetTableStart: Int
    private var cache: [Int: PlistValue] = [:]
    private var inProgress: Set<Int> = []
    private static let maxDepth = 512

    /// True when `bytes` start with the binary plist magic.
    static func isBinaryPlist(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && Array(bytes[0..<6]) == Array("bplist".utf8)
    }

    init(bytes: [UInt8]) throws {
        guard Self.isBinaryPlist(bytes), bytes.count >= 8 + 32 else {
            throw PlistError.malformed("too short for a binary plist")
        }
        self.bytes = bytes
        let t = bytes.count - 32
        offsetSize = Int(bytes[t + 6])
        refSize = Int(bytes[t + 7])
        let count = Self.bigEndian(bytes, t + 8, 8)
        let top = Self.bigEndian(bytes, t + 16, 8)
        let table = Self.bigEndian(bytes, t + 24, 8)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw PlistError.malformed("invalid offset or reference size in trailer")
        }
        guard count > 0, count < UInt64(bytes.count), top < count,
            table >= 8, table < UInt64(t),
            UInt64(t) - table >= count * UInt64(offsetSize)
        else {
            throw PlistError.malformed("trailer points outside the data")
        }
        objectCount = Int(count)
        topObject = Int(top)
        offsetTableStart = Int(table)
    }

    /// Parses the top object.
    mutating func parse() throws -> PlistValue {
        try object(topObject, depth: 0)
    }

    private static func bigEndian(_ b: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<size { v = (v << 8) | UInt64(b[at + i]) }
        return v
    }

    private func read(_ at: Int, _ size: Int) throws -> UInt64 {
        guard at >= 0, size >= 0, at <= bytes.count - size else {
            throw PlistError.malformed("read past the end at offset \(at)")
        }
        return Self.bigEndian(bytes, at, size)
    }

    private func offset(of index: Int) throws -> Int {
        let o = try read(offsetTableStart + index * offsetSize, offsetSize)
        guard o >= 8, o < UInt64(offsetTableStart) else {
            throw PlistError.malformed("object \(index) has an offset outside the object area")
        }
        return Int(o)
    }

    private func reference(_ at: Int) throws -> Int {
        let r = try read(at, refSize)
        guard r < UInt64(objectCount) else {
            throw PlistError.malformed("reference \(r) past the \(objectCount) objects")
        }
        return Int(r)
    }

    /// Reads the length that follows a marker whose low nibble is 0xF.
    private func length(marker: UInt8, at: Int) throws -> (count: Int, start: Int) {
        let low = Int(marker & 0x0F)
        if low != 0x0F { return (low, at + 1) }
        let intMarker = Int(try read(at + 1, 1))
        guard intMarker & 0xF0 == 0x10 else {
            throw PlistError.malformed("bad length marker at offset \(at)")
        }
        let size = 1 << (intMarker & 0x0F)
        guard size <= 8 else { throw PlistError.malformed("length too large at offset \(at)") }
        let n = try read(at + 2, size)
        guard n <= UInt64(bytes.count) else {
            throw PlistError.malformed("length \(n) exceeds the data at offset \(at)")
        }
        return (Int(n), at + 2 + size)
    }

    private mutating func object(_ index: Int, depth: Int) throws -> PlistValue {
        if let cached = cache[index] { return cached }
        guard depth < Self.maxDepth else { throw PlistError.malformed("nesting deeper than \(Self.maxDepth)") }
        guard !inProgress.contains(index) else {
            throw PlistError.malformed("object \(index) contains itself")
        }
        inProgress.insert(index)
        defer { inProgress.remove(index) }
        let at = try offset(of: index)
        let marker = UInt8(try read(at, 1))
        let value: PlistValue
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: value = .null
            case 0x08: value = .bool(false)
            case 0x09: value = .bool(true)
            default: throw PlistError.malformed("unknown marker 0x\(String(marker, radix: 16)) at offset \(at)")
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            switch size {
            case 1, 2, 4: value = .integer(Int64(try read(at + 1, size)))
            case 8: value = .integer(Int64(bitPattern: try read(at + 1, 8)))
            case 16:
                // A 128-bit integer: what fits 64 bits signed is read; anything else (2^64-1, an
                // unsigned value past Int64.max) is refused rather than read as a negative number.
                let high = Int64(bitPattern: try read(at + 1, 8))
                let low = try read(at + 9, 8)
                guard (high == 0 && low <= UInt64(Int64.max)) || (high == -1 && low > UInt64(Int64.max)) else {
                    throw PlistError.malformed(
                        "integer at offset \(at) does not fit 64 bits (high bits \(high), low \(low))")
                }
                value = .integer(Int64(bitPattern: low))
            default: throw PlistError.malformed("integer of \(size) bytes at offset \(at)")
            }
        case 0x2:
            let size = 1 << Int(marker & 0x0F)
            switch size {
            case 4: value = .real(Double(Float(bitPattern: UInt32(try read(at + 1, 4)))))
            case 8: value = .real(Double(bitPattern: try read(at + 1, 8)))
            default: throw PlistError.malformed("real of \(size) bytes at offset \(at)")
            }
        case 0x3:
            guard marker == 0x33 else { throw PlistError.malformed("bad date marker at offset \(at)") }
            value = .date(Double(bitPattern: try read(at + 1, 8)))
        case 0x4:
            let (n, start) = try length(marker: marker, at: at)
            guard start + n <= bytes.count else { throw PlistError.malformed("data past the end at offset \(at)") }
            value = .data(Array(bytes[start..<(start + n)]))
        case 0x5:
            let (n, start) = try length(marker: marker, at: at)
            guard start + n <= bytes.count else { throw PlistError.malformed("string past the end at offset \(at)") }
            let slice = bytes[start..<(start + n)]
            value = .string(String(decoding: slice, as: UTF8.self))
        case 0x6:
            let (n, start) = try length(marker: marker, at: at)
            guard n <= (bytes.count - start) / 2 else {
                throw PlistError.malformed("string past the end at offset \(at)")
            }
            var units: [UInt16] = []
            units.reserveCapacity(n)
            for i in 0..<n { units.append(UInt16(Self.bigEndian(bytes, start + 2 * i, 2))) }
            value = .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            value = .uid(try read(at + 1, min(size, 8)))
        case 0xA, 0xC:
            let (n, start) = try length(marker: marker, at: at)
            guard n <= (bytes.count - start) / refSize else {
                throw PlistError.malformed("array past the end at offset \(at)")
            }
            var items: [PlistValue] = []
            items.reserveCapacity(n)
            for i in 0..<n {
                items.append(try object(try reference(start + i * refSize), depth: depth + 1))
            }
            value = .array(items)
        case 0xD:
            let (n, start) = try length(marker: marker, at: at)
            guard n <= (bytes.count - start) / (2 * refSize) else {
                throw PlistError.malformed("dictionary past the end at offset \(at)")
            }
            var dict: [String: PlistValue] = [:]
            dict.reserveCapacity(n)
            for i in 0..<n {
                let key = try object(try reference(start + i * refSize), depth: depth + 1)
                guard case .string(let k) = key else {
                    throw PlistError.malformed("dictionary key that is not a string at offset \(at)")
                }
                dict[k] = try object(try reference(start + (n + i) * refSize), depth: depth + 1)
            }
            value = .dictionary(dict)
        default:
            throw PlistError.malformed("unknown marker 0x\(String(marker, radix: 16)) at offset \(at)")
        }
        cache[index] = value
        return value
    }
}
