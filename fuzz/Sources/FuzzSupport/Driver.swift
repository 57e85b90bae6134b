import Foundation

/// The entry point libFuzzer offers to programs that have their own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// libFuzzer's byte-level mutator, for custom mutators that fall back to it.
@_silgen_name("LLVMFuzzerMutate")
public func LLVMFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

/// Glue between libFuzzer and a target.
///
/// Each target defines `LLVMFuzzerTestOneInput` itself (`@_cdecl`) and calls
/// ``main(_:)`` from its top-level code. Which `main` the linker keeps
/// (libFuzzer's, or SwiftPM's renamed one that runs the top-level code)
/// depends on the linker; both end in libFuzzer's driver with the same callback.
public enum FuzzDriver {
    /// Runs libFuzzer with the process arguments and exits with its status.
    public static func main(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
    }

    /// The input as an array (libFuzzer may pass a null pointer for the empty input).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return [UInt8](UnsafeBufferPointer(start: data, count: size))
    }
}
