import FuzzSupport
import HistoryKit

// The ACHANGE decoder: ZCOLUMNS bitmasks and tombstone columns, decoded with
// the catalog and model of a fixture or real store (optionally with extra,
// inconsistent catalog rows). The input format is ChangeRows'.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ChangeRows.run(FuzzDriver.bytes(data, size))
    return 0
}

FuzzDriver.main(testOneInput)
