import Foundation

/// Hashes of an examination's inputs taken before reading begins and again when it ends: the
/// record that cdhist read the files and changed none of them.
public struct Examination: Sendable {
    /// One input hashed twice.
    public struct File: Equatable, Sendable {
        public var input: EvidenceInput
        /// Nil: not there.
        public var before: FileDigest?
        public var after: FileDigest?

        /// The same bytes (or absent both times) at the start and the end.
        public var unchanged: Bool { before?.sha256 == after?.sha256 && before?.size == after?.size }
        /// Present at the start or at the end (a companion file absent both times is not shown).
        public var wasPresent: Bool { before != nil || after != nil }
    }

    /// When reading began, in seconds since 1970.
    public let began: Double
    public private(set) var files: [File]
    /// When the second hashes were taken (nil until ``finish()``).
    public private(set) var ended: Double?

    /// Hashes `inputs` (each path once) before anything reads them.
    public static func begin(_ inputs: [EvidenceInput], clock: () -> Double = { Date().timeIntervalSince1970 }) throws -> Examination {
        var seen: Set<String> = []
        let unique = inputs.filter { seen.insert($0.path).inserted }
        let began = clock()
        return Examination(began: began, files: try unique.map { File(input: $0, before: try FileDigest.take($0.path), after: nil) }, ended: nil)
    }

    /// Hashes every input again (``verify()`` then tells whether one changed, after the caller
    /// has shown both hashes).
    public mutating func finish(clock: () -> Double = { Date().timeIntervalSince1970 }) throws {
        for k in files.indices { files[k].after = try FileDigest.take(files[k].input.path) }
        ended = clock()
    }

    /// Whether every input is byte for byte what it was.
    public var unchanged: Bool { files.allSatisfy(\.unchanged) }

    /// Throws for the first input that changed while it was read.
    public func verify() throws {
        if let changed = files.first(where: { !$0.unchanged }) {
            throw EvidenceError.changedWhileReading(path: changed.input.path, before: changed.before?.sha256, after: changed.after?.sha256)
        }
    }
}
