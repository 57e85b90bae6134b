import Foundation
import HistoryReading

/// Why a token could not be read.
public enum TokenError: MessageError, Equatable, Sendable {
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
    /// A plist holding a token under each of several keys (shared defaults): which one is meant?
    /// (Data under a key naming a token that is no archive is a damaged token, not this.)
    case severalTokens(source: String, keys: [String])
    /// A plist of settings holding no token: shared defaults, whose dates are read with `--defaults`.
    case defaultsNotToken(source: String, positions: Int)

    /// Whether the file is of another kind than a token file (another option reads it).
    public var isOtherKindOfFile: Bool {
        switch self {
        case .severalTokens, .defaultsNotToken: return true
        default: return false
        }
    }

    public var message: Message {
        switch self {
        case .corruptArchive(let s, let why): return "\(s): corrupt token archive (\(why))"
        case .wrongClass(let s, let name): return "\(s): an archive of \(name), not an NSPersistentHistoryToken"
        case .malformedToken(let s, let why): return "\(s): history token without usable content (\(why))"
        case .badLiteral(let text): return "'\(text)' is not a token literal (expected STOREUUID:N)"
        case .notAToken(let s, let why): return "\(s): not a history token (\(why))"
        case .corruptJSON(let s, let why): return "\(s): corrupt JSON token (\(why))"
        case .severalTokens(let s, let keys):
            return
                """
                \(s): a plist holding \(keys.count) history tokens (\(keys.joined(separator: ", "))), not one \
                token: \(Control.showTokens) lists them; shared defaults like this are given with \
                \(Control.defaults), which reads each as its actor's position
                """
        case .defaultsNotToken(let s, let positions):
            let held =
                positions == 0
                ? "no history token" : "\(positions) merge position\(positions == 1 ? "" : "s") and no token"
            return
                """
                \(s): a plist of settings holding \(held), not a token file: an app's shared defaults are given \
                with \(Control.defaults)
                """
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
        return archive.classChain(of: archive.topObject()).contains {
            $0 == archivedClassName || $0 == "NSPersistentHistoryToken"
        }
    }

    /// Parses `STOREUUID:N` (several separated by commas).
    public static func parseLiteral(_ text: String) throws -> HistoryToken {
        var numbers: [String: Int64] = [:]
        for part in text.split(separator: ",") {
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count == 2, let n = Int64(pieces[1].trimmingCharacters(in: .whitespaces)),
                UUID(uuidString: pieces[0].trimmingCharacters(in: .whitespaces)) != nil
            else {
                throw TokenError.badLiteral(text)
            }
            numbers[pieces[0].trimmingCharacters(in: .whitespaces).uppercased()] = n
        }
        guard !numbers.isEmpty else { throw TokenError.badLiteral(text) }
        return HistoryToken(transactionNumbers: numbers)
    }

    /// Reads a token file: an archive itself (`token.data`), a plist holding
    /// one archive as `<data>` under some key (`HistoryToken.plist`), or JSON
    /// (a SwiftData token, see ``JSONTokenDecoder``). A plist holding several
    /// tokens, or only settings, is another kind of file: it throws
    /// ``TokenError/severalTokens(source:keys:)`` or ``TokenError/defaultsNotToken(source:positions:)``.
    public static func decode(fileBytes bytes: [UInt8], source: String) throws -> HistoryToken {
        let held = try tokens(fileBytes: bytes, source: source)
        // A damaged token beside a good one counts: which of them the user meant, nothing says.
        let damaged = held.first?.key == nil ? [] : damagedTokenKeys(bytes)
        guard held.count == 1, damaged.isEmpty, let only = held.first else {
            let keys = held.compactMap(\.key).map { ($0, "") } + damaged.map { ($0, " (damaged)") }
            throw TokenError.severalTokens(source: source, keys: keys.sorted { $0.0 < $1.0 }.map { $0.0 + $0.1 })
        }
        return only.token
    }

    /// The keys of a plist whose names say they hold a token and whose data is no token archive.
    private static func damagedTokenKeys(_ bytes: [UInt8]) -> [String] {
        guard let dict = (try? PropertyList.decode(bytes).value)?.dictionaryValue else { return [] }
        return dict.keys.sorted().filter { key in
            guard key.lowercased().contains("token"), let data = dict[key]?.dataValue else { return false }
            return !isTokenArchive(data)
        }
    }

    /// How many tokens a file found while looking around a store holds: 1 for a token file, more
    /// for a plist keeping several actors' (read as shared defaults then), 0 for anything else.
    public static func tokenCount(fileBytes bytes: [UInt8], source: String) -> Int {
        (try? tokens(fileBytes: bytes, source: source).count) ?? 0
    }

    /// Every token a file holds: the token of a token file (key nil), or each key's of a plist
    /// holding tokens (sorted by key). Throws when it holds none.
    public static func tokens(fileBytes bytes: [UInt8], source: String) throws -> [(key: String?, token: HistoryToken)]
    {
        if JSONText.looksLikeJSON(bytes) {
            return [(nil, try JSONTokenDecoder.decode(json: bytes, source: source))]
        }
        let plist: PlistValue
        do {
            plist = try PropertyList.decode(bytes).value
        } catch {
            throw TokenError.corruptArchive(source: source, reason: "\(error)")
        }
        if plist["$objects"] != nil {
            return [(nil, try decode(archive: bytes, source: source))]
        }
        if let dict = plist.dictionaryValue {
            var held: [(key: String?, token: HistoryToken)] = []
            for key in dict.keys.sorted() {
                if let data = dict[key]?.dataValue, isTokenArchive(data) {
                    held.append((key, try decode(archive: data, source: "\(source) [\(key)]")))
                }
            }
            if !held.isEmpty { return held }
            // Data under a key that says it holds a token, that is no token archive: a damaged token
            // (HistoryToken.plist cut short), not shared defaults.
            if let key = dict.keys.sorted().first(where: {
                $0.lowercased().contains("token") && dict[$0]?.dataValue != nil
            }),
                let data = dict[key]?.dataValue
            {
                return [(key, try decode(archive: data, source: "\(source) [\(key)]"))]
            }
            let positions = (try? DefaultsReader.read(bytes: bytes, path: source, storeUUID: nil).records.count) ?? 0
            throw TokenError.defaultsNotToken(source: source, positions: positions)
        }
        throw TokenError.corruptArchive(
            source: source, reason: "neither a token archive, a plist holding one, nor JSON")
    }

    /// Encodes `token` as Core Data archives it (for fixtures and repairs).
    public static func encode(_ token: HistoryToken) -> [UInt8] {
        var b = KeyedArchiveBuilder()
        let root = b.reserve()
        var entries: [String: PlistValue] = [:]
        for uuid in token.transactionNumbers.keys.sorted() {
            entries[uuid] = b.add(value: .integer(token.transactionNumbers[uuid] ?? 0))
        }
        let dict = b.add(dictionary: entries)
        b.set(
            root, to: ["NSPersistentHistoryTokenDictionary": dict],
            classChain: [archivedClassName, "NSPersistentHistoryToken", "NSObject"])
        return BinaryPlistWriter.encode(b.archive(root: root))
    }
}
