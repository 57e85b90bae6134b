/// A 64-bit hash of a page, to tell copies of a page apart without keeping them: equal pages
/// hash equal, and different ones, in practice, not.
enum PageHash {
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var i = 0
        let n = bytes.count & ~7
        while i < n {
            let w = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
            h = (h << 31) | (h >> 33)
            i += 8
        }
        while i < bytes.count {
            h = (h ^ UInt64(bytes[i])) &* 0xC4CE_B9FE_1A85_EC53
            i += 1
        }
        return h ^ (h >> 29)
    }
}
