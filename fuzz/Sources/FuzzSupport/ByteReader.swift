/// Reads structured values from fuzzer bytes; past the end every read gives zeros,
/// so any input is a valid (if short) description.
public struct ByteReader {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { position >= bytes.count }

    public mutating func u8() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// `count` bytes little-endian, unsigned.
    public mutating func unsigned(_ count: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<count { v |= UInt64(u8()) << (8 * UInt64(i)) }
        return v
    }

    public mutating func u16() -> Int { Int(unsigned(2)) }
    public mutating func i16() -> Int64 { Int64(Int16(truncatingIfNeeded: unsigned(2))) }
    public mutating func i64() -> Int64 { Int64(bitPattern: unsigned(8)) }
    public mutating func f64() -> Double { Double(bitPattern: unsigned(8)) }

    /// Up to `count` bytes (fewer at the end).
    public mutating func take(_ count: Int) -> [UInt8] {
        let n = min(count, bytes.count - min(position, bytes.count))
        defer { position += n }
        return Array(bytes[position..<(position + n)])
    }

    /// The rest of the input.
    public mutating func rest() -> [UInt8] { take(bytes.count) }
}
