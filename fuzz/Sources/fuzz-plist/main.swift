import FuzzSupport
import HistoryKit

// Property lists, binary and XML, and the shared-defaults merge-state reader
// on top of them: PropertyList.decode, a binary round trip of whatever
// decodes, KeyedArchive's helpers, and DefaultsReader on the same bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    PlistChecks.run(bytes)
    return 0
}

FuzzDriver.main(testOneInput)
