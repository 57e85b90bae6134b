/// Writes bytes through a pointer into room made beforehand: no capacity or
/// uniqueness check per write, as an array's appends make (the export's hot path
/// writes a few dozen pieces per change).
struct ByteCursor {
    private let start: UnsafeMutablePointer<UInt8>
    private var next: UnsafeMutablePointer<UInt8>

    init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        // An empty buffer may have no address; nothing is written into it.
        start = room.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!
        next = start
    }

    /// The bytes written.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: next - start) }

    mutating func byte(_ b: UInt8) {
        next.pointee = b
        next += 1
    }

    mutating func bytes(_ piece: UnsafeBufferPointer<UInt8>) {
        guard let from = piece.baseAddress else { return }
        next.update(from: from, count: piece.count)
        next += piece.count
    }

    /// `count` copies of `b` (none when it is not positive).
    mutating func repeating(_ b: UInt8, count: Int) {
        guard count > 0 else { return }
        next.initialize(repeating: b, count: count)
        next += count
    }

    /// Takes back the copies of `b` at the end of what was written, down to `count` bytes.
    mutating func dropTrailing(_ b: UInt8, downTo count: Int) {
        while next - start > count, (next - 1).pointee == b { next -= 1 }
    }

    /// Bytes written.
    var count: Int { next - start }

    /// Decimal digits, with a minus sign when negative (at most ``intRoom`` bytes).
    mutating func int(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var at = next + digits
        next = at
        repeat {
            at -= 1
            at.pointee = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }

    /// Room for a sign and 20 digits.
    static let intRoom = 21
}
