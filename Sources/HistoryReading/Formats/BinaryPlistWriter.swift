import Foundation

/// Serialises ``PlistValue``s as `bplist00`, including keyed-archive UIDs.
///
/// Output is deterministic: dictionary keys are written in byte order and
/// equal strings share one object, so the same value always gives the same
/// bytes (fixtures depend on this).
public enum BinaryPlistWriter {
    /// Encodes `value` as a binary property list.
    public static func encode(_ value: PlistValue) -> [UInt8] {
        var flat = Flattener()
        let top = flat.add(value)
        let count = flat.objects.count
        let refSize = byteWidth(UInt64(count))
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for object in flat.objects {
            offsets.append(out.count)
            write(object, refSize: refSize, into: &out)
        }
        let tableStart = out.count
        let offsetSize = byteWidth(UInt64(tableStart))
        for o in offsets { appendBigEndian(UInt64(o), size: offsetSize, to: &out) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        appendBigEndian(UInt64(count), size: 8, to: &out)
        appendBigEndian(UInt64(top), size: 8, to: &out)
        appendBigEndian(UInt64(tableStart), size: 8, to: &out)
        return out
    }

    /// One object of the flattened graph; containers hold object indexes.
    private enum FlatObject {
        case scalar(PlistValue)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    private struct Flattener {
        var objects: [FlatObject] = []
        var strings: [String: Int] = [:]

        mutating func add(_ value: PlistValue) -> Int {
            switch value {
            case .string(let s):
                if let i = strings[s] { return i }
                objects.append(.scalar(value))
                strings[s] = objects.count - 1
                return objects.count - 1
            case .array(let items):
                let index = objects.count
                objects.append(.array([]))
                let refs = items.map { add($0) }
                objects[index] = .array(refs)
                return index
            case .dictionary(let dict):
                let index = objects.count
                objects.append(.dictionary(keys: [], values: []))
                let keys = dict.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
                let keyRefs = keys.map { add(.string($0)) }
                let valueRefs = keys.map { add(dict[$0] ?? .null) }
                objects[index] = .dictionary(keys: keyRefs, values: valueRefs)
                return index
            default:
                objects.append(.scalar(value))
                return objects.count - 1
            }
        }
    }

    private static func byteWidth(_ max: UInt64) -> Int {
        if max < 1 << 8 { return 1 }
        if max < 1 << 16 { return 2 }
        if max < 1 << 32 { return 4 }
        return 8
    }

    private static func appendBigEndian(_ v: UInt64, size: Int, to out: inout [UInt8]) {
        for i in stride(from: size - 1, through: 0, by: -1) {
            out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i))))
        }
    }

    private static func appendMarker(_ high: UInt8, count: Int, to out: inout [UInt8]) {
        if count < 15 {
            out.append(high << 4 | UInt8(count))
        } else {
            out.append(high << 4 | 0x0F)
            appendInteger(Int64(count), to: &out)
        }
    }

    private static func appendInteger(_ i: Int64, to out: inout [UInt8]) {
        if i < 0 {
            out.append(0x13)
            appendBigEndian(UInt64(bitPattern: i), size: 8, to: &out)
            return
        }
        let width = byteWidth(UInt64(i))
        out.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(UInt64(i), size: width, to: &out)
    }

    private static func write(_ object: FlatObject, refSize: Int, into out: inout [UInt8]) {
        switch object {
        case .array(let refs):
            appendMarker(0xA, count: refs.count, to: &out)
            for r in refs { appendBigEndian(UInt64(r), size: refSize, to: &out) }
        case .dictionary(let keys, let values):
            appendMarker(0xD, count: keys.count, to: &out)
            for r in keys + values { appendBigEndian(UInt64(r), size: refSize, to: &out) }
        case .scalar(let value):
            switch value {
            case .null: out.append(0x00)
            case .bool(let b): out.append(b ? 0x09 : 0x08)
            case .integer(let i): appendInteger(i, to: &out)
            case .real(let d):
                out.append(0x23)
                appendBigEndian(d.bitPattern, size: 8, to: &out)
            case .date(let d):
                out.append(0x33)
                appendBigEndian(d.bitPattern, size: 8, to: &out)
            case .data(let bytes):
                appendMarker(0x4, count: bytes.count, to: &out)
                out += bytes
            case .string(let s):
                if s.utf8.allSatisfy({ $0 < 0x80 }) {
                    appendMarker(0x5, count: s.utf8.count, to: &out)
                    out += Array(s.utf8)
                } else {
                    let units = Array(s.utf16)
                    appendMarker(0x6, count: units.count, to: &out)
                    for u in units { appendBigEndian(UInt64(u), size: 2, to: &out) }
                }
            case .uid(let u):
                let width = byteWidth(u)
                out.append(0x80 | UInt8(width - 1))
                appendBigEndian(u, size: width, to: &out)
            case .array, .dictionary:
                break  // flattened into FlatObject.array / .dictionary
            }
        }
    }
}
