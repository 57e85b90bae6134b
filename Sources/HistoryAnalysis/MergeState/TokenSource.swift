import Foundation
import HistoryReading

/// A token the user names, read one way wherever it is named (an actor's `--token`, a
/// position's `token:FILE`, `cdhist token`): the file at that path when there is one, else a
/// `STOREUUID:N` literal, so that each says the same of the same value.
public enum TokenSource: Sendable {
    /// A file's bytes: a token archive, a plist holding one or several, SwiftData's JSON.
    case file(path: String, bytes: [UInt8])
    /// A `STOREUUID:N` literal, as `cdhist token` prints one.
    case literal(HistoryToken)

    /// Reads `value`: the file at that path (or its bytes in `found`, for a file inside a backup
    /// or an archive), else the literal it spells. Throws ``MergeStateError/noTokenFile(path:)``
    /// for a value that is neither, ``TokenError/badLiteral(_:)`` for a literal that is not
    /// well formed, and ``MergeStateError/cannotRead(path:reason:)`` for a file that
    /// cannot be read.
    public static func read(_ value: String, found: [String: [UInt8]] = [:]) throws -> TokenSource {
        if let bytes = found[value] { return .file(path: value, bytes: bytes) }
        guard FileManager.default.fileExists(atPath: value) else {
            // A literal has a colon and never a slash; anything else was meant as a file.
            guard value.contains(":"), !value.contains("/") else { throw MergeStateError.noTokenFile(path: value) }
            return .literal(try HistoryTokenDecoder.parseLiteral(value))
        }
        guard let data = FileContents.read(value) else { throw MergeStateError.unreadable(path: value) }
        return .file(path: value, bytes: [UInt8](data))
    }
}
