import Foundation
import HistoryAnalysis
import HistoryReading

/// A token as the user gives it: a file (an archive, a plist holding one, SwiftData's JSON) or
/// a `STOREUUID:N` literal, each optionally with its actor: `ACTOR=FILE`, `ACTOR=STOREUUID:N`.
public struct TokenSpec: Equatable, Sendable {
    /// The actor: the given one, else the file's name without its extension, else the literal.
    public var actor: String
    /// The file, or the literal.
    public var value: String

    /// Reads `spec`: an `=` names the actor unless a file has the whole name.
    public init(_ spec: String) {
        if let eq = spec.firstIndex(of: "="), !FileManager.default.fileExists(atPath: spec) {
            actor = String(spec[..<eq])
            value = String(spec[spec.index(after: eq)...])
        } else if !FileManager.default.fileExists(atPath: spec), (try? HistoryTokenDecoder.parseLiteral(spec)) != nil {
            actor = spec
            value = spec
        } else {
            actor = URL(fileURLWithPath: spec).deletingPathExtension().lastPathComponent
            value = spec
        }
    }

    /// The token `value` holds: the file's when there is such a file, else the literal's
    /// (read as ``TokenSource`` reads it).
    public static func token(fileOrLiteral value: String) throws -> HistoryToken {
        switch try TokenSource.read(value) {
        case .literal(let token): return token
        case .file(let path, let bytes): return try HistoryTokenDecoder.decode(fileBytes: bytes, source: path)
        }
    }
}
