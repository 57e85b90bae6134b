import Crypto
import Foundation
import HistoryReading

/// Hashes of an examination's inputs taken before reading begins and again when it ends: the
/// record that cdhist read the files and changed none of them.
public struct Examination: Sendable {
    /// One input hashed twice.
    public struct File: Equatable, Sendable {
        public var input: EvidenceInput
        /// Nil: not there.
        public var before: FileDigest?
        public var after: FileDigest?
        /// For an archive: the files read from it, hashed when reading began.
        public var members: [MemberDigest] = []

        /// The same bytes (or absent both times) at the start and the end.
        public var unchanged: Bool { before?.sha256 == after?.sha256 && before?.size == after?.size }
        /// Present at the start or at the end (a companion file absent both times is not shown).
        public var wasPresent: Bool { before != nil || after != nil }
    }

    /// When reading began, in seconds since 1970.
    public let began: Double
    public private(set) var files: [File]
    /// When the second hashes were taken (nil until ``finish(clock:)``).
    public private(set) var ended: Double?

    /// A file inside an archive as it was read: its size and SHA-256.
    public struct MemberDigest: Equatable, Sendable {
        public var role: EvidenceInput.Role
        /// Its path in the archive.
        public var path: String
        public var size: Int64
        public var sha256: String
    }

    /// Hashes `inputs` (each path once, an archive's members gathered) before anything reads them.
    public static func begin(_ inputs: [EvidenceInput], clock: () -> Double = { Date().timeIntervalSince1970 }) throws
        -> Examination
    {
        var unique: [EvidenceInput] = []
        for input in inputs {
            if let k = unique.firstIndex(where: { $0.path == input.path }) {
                unique[k].members += input.members.filter { !unique[k].members.contains($0) }
            } else {
                unique.append(input)
            }
        }
        let began = clock()
        return Examination(
            began: began,
            files: try unique.map { input in
                File(
                    input: input, before: try FileDigest.take(input.path), after: nil,
                    members: try MemberDigest.take(input.members, in: input.path))
            }, ended: nil)
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
            throw EvidenceError.changedWhileReading(
                path: changed.input.path, before: changed.before?.sha256, after: changed.after?.sha256)
        }
    }
}

extension Examination.MemberDigest {
    /// Each of `members` the archive at `path` holds, inflated and hashed.
    static func take(_ members: [EvidenceInput.Member], in path: String) throws -> [Examination.MemberDigest] {
        guard !members.isEmpty, FileStatus(path) != nil else { return [] }
        // A damaged archive's error names it already.
        let archive = try ZipStoreArchive(path: path)
        return try members.filter { archive.contains($0.path) }.map { member in
            var hasher = SHA256()
            var size: Int64 = 0
            try archive.read(member.path) { piece in
                hasher.update(data: piece)
                size += Int64(piece.count)
            }
            return Examination.MemberDigest(
                role: member.role, path: member.path, size: size, sha256: Array(hasher.finalize()).hexString)
        }
    }
}
