import Foundation
import FuzzSupport

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
    // Which part of the commands runs (see StoreChecks): a hash of the length and the header.
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(size)
    for byte in input.main.prefix(100) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
    StoreChecks.run(path: path, part: Int(hash % 3))
    return 0
}

@_cdecl("LLVMFuzzerCustomMutator")
public func customMutator(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    guard let data else { return 0 }
    return StoreMutator.mutate(data, size, maxSize, seed)
}

FuzzDriver.main(testOneInput)
