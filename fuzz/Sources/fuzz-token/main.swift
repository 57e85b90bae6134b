import FuzzSupport
import HistoryKit

// History tokens: archived NSPersistentHistoryToken (token.data), plists
// holding one under some key (HistoryToken.plist), and STOREUUID:N literals.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    TokenChecks.run(FuzzDriver.bytes(data, size))
    return 0
}

FuzzDriver.main(testOneInput)
