import Foundation
import HistoryAnalysis
import HistoryReading
import HistoryWrites

/// A merge position's file rewritten: a defaults plist with one actor's keys changed, or a token file.
public struct PositionEdit: Sendable {
    /// The file (a defaults plist or a token file).
    public var path: String
    /// What it is: `defaults (binary)`, `token file`.
    public var kind: String
    /// The position the actor has now, and the one it will have.
    public var old: MergePosition
    public var new: MergePosition
    /// The bytes read (the write refuses a file that changed since) and the bytes to write.
    var bytesRead: Data
    var bytes: Data
}

/// The values a provocation writes in place of a token, in the token's own format: an archive
/// stays an archive, SwiftData's JSON stays JSON with every other byte kept.
enum TokenRewrite {
    /// `bytes` (an archive or JSON) giving `storeUUID` the transaction `number`, other stores kept.
    static func moved(_ bytes: [UInt8], storeUUID: String, to number: Int64, source: String) throws -> [UInt8] {
        if JSONText.looksLikeJSON(bytes) {
            guard let rewritten = JSONTokenDecoder.rewrite(json: bytes, storeUUID: storeUUID, to: number) else {
                throw ProvokeError.notApplicable(
                    path: source, reason: "its JSON gives this store (\(storeUUID)) no transaction")
            }
            return rewritten
        }
        var numbers = try HistoryTokenDecoder.decode(archive: bytes, source: source).transactionNumbers
        numbers = numbers.filter { $0.key.caseInsensitiveCompare(storeUUID) != .orderedSame }
        numbers[storeUUID] = number
        return HistoryTokenDecoder.encode(HistoryToken(transactionNumbers: numbers))
    }

    /// `bytes` naming the store `foreign` wherever they named `storeUUID`: a well-formed token of another store.
    static func foreign(_ bytes: [UInt8], storeUUID: String, foreign: String, source: String) throws -> [UInt8] {
        if JSONText.looksLikeJSON(bytes) {
            let text = String(decoding: bytes, as: UTF8.self)
            return Array(text.replacingOccurrences(of: storeUUID, with: foreign, options: .caseInsensitive).utf8)
        }
        let numbers = try HistoryTokenDecoder.decode(archive: bytes, source: source).transactionNumbers
        var moved: [String: Int64] = [:]
        for (uuid, n) in numbers { moved[uuid.caseInsensitiveCompare(storeUUID) == .orderedSame ? foreign : uuid] = n }
        return HistoryTokenDecoder.encode(HistoryToken(transactionNumbers: moved))
    }

    /// Bytes in the format of `bytes` that do not decode: JSON cut in the middle, or an archive of
    /// Core Data's token class without the dictionary of its stores.
    static func corrupt(_ bytes: [UInt8]) -> [UInt8] {
        if JSONText.looksLikeJSON(bytes) { return Array(bytes.prefix(max(1, bytes.count / 2))) }
        return undecodableArchive
    }

    /// An archive whose root is Core Data's token class, holding no store dictionary: it is
    /// recognised as a token and cannot be unarchived.
    static var undecodableArchive: [UInt8] {
        var b = KeyedArchiveBuilder()
        let root = b.reserve()
        let text = b.add(string: "not a dictionary of stores")
        b.set(
            root, to: ["NSPersistentHistoryTokenDictionary": text],
            classChain: [HistoryTokenDecoder.archivedClassName, "NSPersistentHistoryToken", "NSObject"])
        return BinaryPlistWriter.encode(b.archive(root: root))
    }
}

extension PositionEdit {
    /// The token file `path` with its token rewritten by `rewrite` (given the archive or JSON bytes):
    /// a file that is the token itself, or a plist holding it under one key (its format kept).
    static func tokenFile(_ path: String, old: MergePosition, rewrite: ([UInt8]) throws -> [UInt8]) throws
        -> PositionEdit
    {
        guard let data = FileContents.read(path) else { throw MergeStateError.unreadable(path: path) }
        let bytes = [UInt8](data)
        var new: [UInt8]
        if JSONText.looksLikeJSON(bytes) || HistoryTokenDecoder.isTokenArchive(bytes) {
            new = try rewrite(bytes)
        } else {
            let decoded: (value: PlistValue, format: PropertyList.Format)
            do { decoded = try PropertyList.decode(bytes) } catch {
                throw TokenError.corruptArchive(source: path, reason: "\(error)")
            }
            guard var dict = decoded.value.dictionaryValue,
                let key = dict.keys.sorted().first(where: {
                    dict[$0]?.dataValue.map(HistoryTokenDecoder.isTokenArchive) == true
                })
                    ?? dict.keys.sorted().first(where: {
                        $0.lowercased().contains("token") && dict[$0]?.dataValue != nil
                    }),
                let held = dict[key]?.dataValue
            else {
                throw ProvokeError.notApplicable(
                    path: path, reason: "holds no token under one key that cdhist can rewrite")
            }
            dict[key] = .data(try rewrite(held))
            do {
                new =
                    decoded.format == .xml
                    ? try PropertyList.encodeXML(.dictionary(dict)) : PropertyList.encodeBinary(.dictionary(dict))
            } catch {
                throw ProvokeError.notApplicable(path: path, reason: "cannot be written again as XML (\(error))")
            }
        }
        let position = try TokenFileReader.read(bytes: new, path: path, actor: "").position
        return PositionEdit(path: path, kind: "token file", old: old, new: position, bytesRead: data, bytes: Data(new))
    }

    /// The defaults plist of `plan`, and what `actor`'s position reads as once it is written.
    static func defaults(
        _ plan: DefaultsRepairPlan, actor: String, old: MergePosition, storeUUID: String, prefixes: [String]
    ) throws -> PositionEdit {
        let bytes = try DefaultsRepair.encoded(plan)
        let state = try DefaultsReader.read(
            bytes: bytes, path: plan.path, storeUUID: storeUUID, customPrefixes: prefixes)
        guard let record = state.records.first(where: { $0.actor == actor }) else {
            throw ProvokeError.notApplicable(
                path: plan.path,
                reason: "once rewritten, the plist would hold no position of '\(actor)' that cdhist reads")
        }
        return PositionEdit(
            path: plan.path, kind: "defaults (\(plan.format.rawValue))", old: old, new: record.position,
            bytesRead: plan.bytesRead, bytes: Data(bytes))
    }
}
