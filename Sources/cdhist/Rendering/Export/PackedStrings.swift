/// Byte strings packed end to end in one allocation, read without retaining anything.
/// Owned by one object, which frees them (``free()``) when it goes.
// Unchecked Sendable: the bytes are written once, when packed, and only read after; the owner
// frees them when no thread reads any more.
struct PackedStrings: @unchecked Sendable {
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    /// String i is `bytes[ends[i - 1] ..< ends[i]]` (from 0 for the first).
    private let ends: UnsafeMutableBufferPointer<Int>
    /// The longest string's length.
    let longest: Int

    init(_ strings: [[UInt8]]) {
        let all = strings.flatMap { $0 }
        bytes = .allocate(capacity: max(all.count, 1))
        _ = bytes.initialize(from: all)
        ends = .allocate(capacity: max(strings.count, 1))
        var end = 0
        for (i, s) in strings.enumerated() {
            end += s.count
            ends[i] = end
        }
        longest = strings.map(\.count).max() ?? 0
    }

    subscript(i: Int) -> UnsafeBufferPointer<UInt8> {
        let start = i == 0 ? 0 : ends[i - 1]
        return UnsafeBufferPointer(rebasing: bytes[start..<ends[i]])
    }

    func free() {
        bytes.deallocate()
        ends.deallocate()
    }
}
