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

    /// The token `value` holds: the file's when there is such a file, else the literal's.
    public static func token(fileOrLiteral value: String) throws -> HistoryToken {
        guard FileManager.default.fileExists(atPath: value) else {
            guard let only = try tokens(fileOrLiteral: value).first else {
                throw MergeStateError.noTokenFile(path: value)
            }
            return only.token
        }
        guard let data = FileContents.read(value) else {
            throw MergeStateError.unreadableToken(
                path: value, reason: FileContents.whyUnreadable(value) ?? "cannot be read")
        }
        return try HistoryTokenDecoder.decode(fileBytes: [UInt8](data), source: value)
    }

    /// Every token `value` holds: a token file's or a literal's one (key nil), or each of a
    /// plist's keys holding one (shared defaults keeping several actors' tokens).
    public static func tokens(fileOrLiteral value: String) throws -> [(key: String?, token: HistoryToken)] {
        if FileManager.default.fileExists(atPath: value) {
            guard let data = FileContents.read(value) else {
                throw MergeStateError.unreadableToken(
                    path: value, reason: FileContents.whyUnreadable(value) ?? "cannot be read")
            }
            return try HistoryTokenDecoder.tokens(fileBytes: [UInt8](data), source: value)
        }
        if value.contains(":") { return [(nil, try HistoryTokenDecoder.parseLiteral(value))] }
        throw MergeStateError.noTokenFile(path: value)
    }
}
