import Foundation

/// Why a token could not be read.
public enum TokenError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not a readable keyed archive.
    case corruptArchive(source: String, reason: String)
    /// A valid archive of some other class.
    case wrongClass(source: String, className: String)
    /// A token archive whose dictionary is missing, empty or malformed.
    case malformedToken(source: String, reason: String)
    /// A `UUID:N` literal that does not parse.
    case badLiteral(String)
    /// Readable, but not a token at all (JSON that maps no store to a transaction).
    case notAToken(source: String, reason: String)
    /// Text that begins as JSON but is not JSON.
    case corruptJSON(source: String, reason: String)

    public var description: String {
        switch self {
        case .corruptArchive(let s, let why): return "\(s): corrupt token archive (\(why))"
        case .wrongClass(let s, let name): return "\(s): an archive of \(name), not an NSPersistentHistoryToken"
        case .malformedToken(let s, let why): return "\(s): history token without usable content (\(why))"
        case .badLiteral(let text): return "'\(text)' is not a token literal (expected STOREUUID:N)"
        case .notAToken(let s, let why): return "\(s): not a history token (\(why))"
        case .corruptJSON(let s, let why): return "\(s): corrupt JSON token (\(why))"
        }
    }
}

/// Decodes `NSPersistentHistoryToken` archives without Core Data.
public enum HistoryTokenDecoder {
    /// The class Core Data archives tokens as.
    public static let archivedClassName = "_NSPersistentHistoryToken"

    /// Decodes an archive (binary or XML plist bytes) of a history token.
    public static func decode(archive bytes: [UInt8], source: String) throws -> HistoryToken {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(bytes: bytes)
        } catch {
            throw TokenError.corruptArchive(source: source, reason: "\(error)")
        }
        return try decode(archive, source: source)
    }

    /// Decodes a token from an already-read archive.
    public static func decode(_ archive: KeyedArchive, source: String) throws -> HistoryToken {
        guard let root = archive.topObject() else {
            throw TokenError.corruptArchive(source: source, reason: "no root object")
        }
        let classes = archive.classChain(of: root)
        guard classes.contains("NSPersistentHistoryToken") || classes.contains(archivedClassName) else {
            throw TokenError.wrongClass(source: source, className: classes.first ?? "an unknown class")
        }
        guard let entries = archive.dictionary(archive.value(root, "NSPersistentHistoryTokenDictionary")) else {
            throw TokenError.malformedToken(source: source, reason: "no NSPersistentHistoryTokenDictionary")
        }
        var numbers: [String: Int64] = [:]
        for (key, value) in entries {
            guard let n = value.integerValue ?? archive.value(value, "NS.intval")?.integerValue else {
                throw TokenError.malformedToken(source: source, reason: "the entry for \(key) is not a number")
            }
            numbers[key] = n
        }
        guard !numbers.isEmpty else {
            throw TokenError.malformedToken(source: source, reason: "it names no store")
        }
        return HistoryToken(transactionNumbers: numbers)
    }

    /// Whether `bytes` are a keyed archive whose root is a history token
    /// (used to find tokens under any plist key).
    public static func isTokenArchive(_ bytes: [UInt8]) -> Bool {
        guard let archive = try? KeyedArchive(bytes: bytes) else { return false }
        return archive.classChain(of: archive.topObject()).contains { $0 == archivedClassName || $0 == "NSPersistentHistoryToken" }
    }

    /// Parses `STOREUUID:N` (several separated by commas).
    public static func parseLiteral(_ text: String) throws -> HistoryToken {
        var numbers: [String: Int64] = [:]
        for part in text.split(separator: ",") {
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count == 2, let n = Int64(pieces[1].trimmingCharacters(in: .whitespaces)),
                  UUID(uuidString: pieces[0].trimmingCharacters(in: .whitespaces)) != nil else {
                throw TokenError.badLiteral(text)
            }
            numbers[pieces[0].trimmingCharacters(in: .whitespaces).uppercased()] = n
        }
        guard !numbers.isEmpty else { throw TokenError.badLiteral(text) }
        return HistoryToken(transactionNumbers: numbers)
    }

    /// Reads a token file: an archive itself (`token.data`), a plist holding
    /// one archive as `<data>` under some key (`HistoryToken.plist`), or JSON
    /// (a SwiftData token, see ``JSONTokenDecoder``).
    public static func decode(fileBytes bytes: [UInt8], source: String) throws -> HistoryToken {
        if JSONText.looksLikeJSON(bytes) {
            return try JSONTokenDecoder.decode(json: bytes, source: source)
        }
        let plist: PlistValue
        do {
            plist = try PropertyList.decode(bytes).value
        } catch {
            throw TokenError.corruptArchive(source: source, reason: "\(error)")
        }
        if plist["$objects"] != nil {
            return try decode(archive: bytes, source: source)
        }
        if let dict = plist.dictionaryValue {
            for key in dict.keys.sorted() {
                if let data = dict[key]?.dataValue, isTokenArchive(data) {
                    return try decode(archive: data, source: "\(source) [\(key)]")
                }
            }
        }
        throw TokenError.corruptArchive(source: source, reason: "neither a token archive, a plist holding one, nor JSON")
    }

    /// Encodes `token` as Core Data archives it (for fixtures and repairs).
    public static func encode(_ token: HistoryToken) -> [UInt8] {
        var b = KeyedArchiveBuilder()
        let root = b.reserve()
        var entries: [String: PlistValue] = [:]
        for uuid in token.transactionNumbers.keys.sorted() { entries[uuid] = b.add(value: .integer(token.transactionNumbers[uuid] ?? 0)) }
        let dict = b.add(dictionary: entries)
        b.set(root, to: ["NSPersistentHistoryTokenDictionary": dict],
              classChain: [archivedClassName, "NSPersistentHistoryToken", "NSObject"])
        return BinaryPlistWriter.encode(b.archive(root: root))
    }
}
