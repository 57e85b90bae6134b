import Foundation
import HistoryReading

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replaces a small file (a plist, a token file) atomically: the new bytes in a temporary
/// file beside it, then a rename over it, refused when the file changed since it was read.
package enum FileReplacement {
    /// Writes `bytes` over `path` (through a link, the file it names; the link is kept), keeping
    /// its permissions, when it still holds `expected`. On failure the file is unchanged, no
    /// temporary file is left, and the error names `path` with `outcome`.
    package static func replace(
        _ path: String, expecting expected: Data, with bytes: Data, stop: WriteInterruption, outcome: Message
    ) throws {
        let fm = FileManager.default
        let target = FileStatus.resolvedPath(path)
        let dir = URL(fileURLWithPath: target).deletingLastPathComponent().path
        let temporary = "\(dir)/.\(URL(fileURLWithPath: target).lastPathComponent).cdhist-\(getpid()).tmp"
        do {
            try? fm.removeItem(atPath: temporary)
            try stop.check(path: path, outcome: outcome)
            try FileWriter.create(temporary, contents: bytes, like: FileStatus(target))
            try stop.check(path: path, outcome: outcome)
            guard FileContents.read(target) == expected else { throw RepairError.changedSinceRead(path: path) }
            guard rename(temporary, target) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? fm.removeItem(atPath: temporary)
            if let error = error as? RepairError { throw error }
            throw RepairError.writeFailed(path: path, file: temporary, cause: WriteFault.cause(error), outcome: outcome)
        }
    }
}
