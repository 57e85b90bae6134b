import FuzzSupport
import HistoryKit

// Models: the first byte picks the decoder for the rest: 0 a Z_MODELCACHE
// blob (raw DEFLATE of a keyed archive), 1 the keyed archive itself (a
// compiled .mom), 2 an .xcdatamodel `contents` XML. Every decoded model is
// then laid out (ZCOLUMNS slots, tombstones) entity by entity.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ModelChecks.run(FuzzDriver.bytes(data, size))
    return 0
}

FuzzDriver.main(testOneInput)
