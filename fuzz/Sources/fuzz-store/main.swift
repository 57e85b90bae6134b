import FuzzSupport
import Foundation

// Whole stores: the input is a store's main file, optionally followed by its
// WAL (see StoreInput). It is written to a scratch folder (with an -shm for
// about half of the WAL inputs) and opened and read as cdhist reads it
// (StoreChecks). The custom mutator adds page-sized and value-level
// mutations to libFuzzer's byte mutations (StoreMutator).

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = StoreInput(FuzzDriver.bytes(data, size))
    let withShm = (input.wal?.count ?? 0) > 16 && input.wal![16] & 1 == 1
    guard let path = try? input.write(to: Scratch.directory, withShm: withShm) else {
        fatalError("cannot write the input to \(Scratch.directory.path)")
    }
    StoreChecks.run(path: path)
    return 0
}

@_cdecl("LLVMFuzzerCustomMutator")
public func customMutator(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    guard let data else { return 0 }
    return StoreMutator.mutate(data, size, maxSize, seed)
}

FuzzDriver.main(testOneInput)
