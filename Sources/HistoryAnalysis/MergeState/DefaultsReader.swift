import Foundation
import HistoryReading

/// Why a defaults plist or token file could not be read.
public enum MergeStateError: MessageError, Equatable, Sendable {
    case fileNotFound(path: String)
    /// The file is there but cannot be read (permissions, macOS's privacy protection).
    case cannotRead(path: String, reason: String)
    case notAPlist(path: String, reason: Message)
    case notADictionary(path: String)
    /// A token value that is neither a file nor a `STOREUUID:N` literal.
    case noTokenFile(path: String)
    /// A token given as `ACTOR=…` that cannot name an actor.
    case invalidTokenSpec(spec: String, reason: Message)
    /// A history token given where shared defaults are read.
    case tokenNotDefaults(path: String)
    /// An App Group folder without exactly one store to read.
    case noSingleStore(path: String, reason: String)
    /// A merge-state file named to be hashed is not there.
    case noFileToHash(path: String)

    /// Why the file at `path`, which could not be read, could not be.
    package static func unreadable(path: String) -> MergeStateError {
        switch FileContents.whyUnreadable(path) {
        case nil, "no such file": return .fileNotFound(path: path)
        case let reason?: return .cannotRead(path: path, reason: reason)
        }
    }

    public var message: Message {
        switch self {
        case .fileNotFound(let p): return "\(p): no such file"
        case .cannotRead(let p, let why): return "\(p): cannot be read (\(why))"
        case .notAPlist(let p, let why): return "\(p): not a property list (\(why))"
        case .notADictionary(let p): return "\(p): the property list is not a dictionary (shared defaults are one)"
        case .noTokenFile(let p): return "\(p): no such token file"
        case .invalidTokenSpec(let spec, let why): return "\(Control.token) '\(spec)': \(why)"
        case .tokenNotDefaults(let p):
            return "\(p): a history token, not shared defaults: give it with \(Control.token) (ACTOR=\(p))"
        case .noSingleStore(let p, let why): return "\(p): \(why)"
        case .noFileToHash(let p): return "\(p): no such file to hash"
        }
    }
}

/// The merge state found in an App Group's shared defaults plist.
public struct DefaultsMergeState: Equatable, Sendable {
    public var path: String
    public var format: PropertyList.Format
    /// Recognised entries, sorted by actor then key.
    public var records: [MergeRecord]
    /// Keys of other stores' positions, left out of ``records``: a key naming another store by
    /// UUID (AppwiseCore's, Apple's sharing sample's `HistoryToken<storeUUID>`), or one of a
    /// known format outside the `--key-prefix` that qualifies it (HalloApp's other stores).
    public var otherStoreKeys: [String]
    /// Keys of other apps and settings, ignored.
    public var ignoredKeyCount: Int
    /// Values that looked like a position but are not one (JSON that maps no
    /// store to a transaction), each naming its key: worth a note when asked.
    public var notes: [Message] = []
}

/// Reads shared defaults (binary or XML plists) and finds merge positions:
/// dates under every known key format, and archived tokens under any key.
public enum DefaultsReader {
    /// Reads `path`; `storeUUID` selects AppwiseCore keys of that store
    /// (others are listed in ``DefaultsMergeState/otherStoreKeys``).
    public static func read(path: String, storeUUID: String?, customPrefixes: [String] = []) throws
        -> DefaultsMergeState
    {
        guard let data = FileContents.read(path) else {
            throw MergeStateError.unreadable(path: path)
        }
        return try read(bytes: [UInt8](data), path: path, storeUUID: storeUUID, customPrefixes: customPrefixes)
    }

    /// Reads plist `bytes` already loaded from `path` (which only names them in records and errors).
    public static func read(bytes: [UInt8], path: String, storeUUID: String?, customPrefixes: [String] = []) throws
        -> DefaultsMergeState
    {
        let (dict, format) = try dictionary(bytes, path: path)
        var records: [MergeRecord] = []
        var other: [String] = []
        var ignored = 0
        var notes: [Message] = []
        // Formats a --key-prefix qualifies: their keys outside it are other stores'.
        let qualified = customPrefixes.compactMap(MergeKeyFormat.qualified(by:))
        for key in dict.keys.sorted() {
            guard let value = dict[key] else { continue }
            let source = "\(path) [\(key)]"
            let parsed = MergeKeyFormat.parse(key, customPrefixes: customPrefixes)
            if let uuid = parsed?.storeUUID, let storeUUID, uuid.caseInsensitiveCompare(storeUUID) != .orderedSame {
                other.append(key)
                notes.append("\(source): the position of another store (\(uuid)), not of this one")
                continue
            }
            if let parsed, qualified.contains(parsed.format) {
                other.append(key)
                notes.append("\(source): outside \(customPrefixes.joined(separator: ", ")): another store's position")
                continue
            }
            if let parsed {
                var record = MergeRecord(
                    actor: parsed.actor, position: position(value, format: format, source: source),
                    source: source, keyFormat: parsed.format)
                (record.file, record.key) = (path, key)
                records.append(record)
                continue
            }
            let found = tokens(in: value, path: key, path: path, storeUUID: storeUUID)
            // A token of the store a key names, another than this one (Apple's sharing sample keeps
            // `HistoryToken<storeUUID>` for its private and its shared store): that store's position.
            if let uuid = Self.storeUUID(in: key), let storeUUID,
                uuid.caseInsensitiveCompare(storeUUID) != .orderedSame,
                !found.records.isEmpty,
                found.records.allSatisfy({ Self.isTokenOfOtherStore($0.position, storeUUID: storeUUID) })
            {
                other.append(key)
                notes.append("\(source): the position of another store (\(uuid)), not of this one")
                continue
            }
            records += found.records.map { found in
                var record = found
                (record.file, record.key) = (path, found.actor == key ? key : nil)
                return record
            }
            notes += found.notes
            if found.records.isEmpty {
                ignored += 1
                if found.notes.isEmpty && Self.looksLikeMergeState(key) {
                    let isDate: Bool
                    if case .date = value { isDate = true } else { isDate = false }
                    notes.append(
                        isDate
                            ? """
                            \(source): a date under a key of no known format (if it is a merge position, give the \
                            part before the actor's name with \(Control.keyPrefix))
                            """
                            : "\(source): holds \(value.kindName), not a date or a history token")
                }
            }
        }
        records.sort { ($0.actor, $0.source) < ($1.actor, $1.source) }
        return DefaultsMergeState(
            path: path, format: format, records: records, otherStoreKeys: other, ignoredKeyCount: ignored, notes: notes)
    }

    /// Whether `position` is a token that gives this store no transaction.
    private static func isTokenOfOtherStore(_ position: MergePosition, storeUUID: String) -> Bool {
        if case .token(let token) = position { return token.transactionNumber(forStore: storeUUID) == nil }
        return false
    }

    /// The tokens `value` holds under an arbitrary key (`name`, or the key path to it): itself a
    /// JSON token or an archived one, or tokens inside a dictionary or an array (Unwatched's
    /// `historyTokens`, a dictionary of JSON tokens; StudApp's arrays of archives in 2017), each
    /// named by its key path. `notes` say what looked like a token and was not one. Inside a
    /// container only what decodes as a token counts (a dictionary of device or login tokens is
    /// no merge state), and the entry's own key decides whether it says it holds one.
    private static func tokens(
        in value: PlistValue, path name: String, path: String, storeUUID: String?, depth: Int = 0, leaf: String? = nil
    )
        -> (records: [MergeRecord], notes: [Message])
    {
        let source = "\(path) [\(name)]"
        let key = leaf ?? name
        if let json = jsonBytes(value) {
            switch jsonPosition(json, key: key, source: source, storeUUID: storeUUID) {
            case .success(let position):
                if depth > 0, case .unreadable = position { return ([], []) }
                return ([MergeRecord(actor: name, position: position, source: source, keyFormat: .jsonToken)], [])
            case .failure(let why): return ([], depth > 0 ? [] : ["\(why)"])
            }
        }
        if let bytes = value.dataValue {
            guard depth == 0 || HistoryTokenDecoder.isTokenArchive(bytes),
                let token = tokenPosition(bytes, key: key, source: source)
            else { return ([], []) }
            return ([MergeRecord(actor: name, position: token, source: source, keyFormat: .tokenKey)], [])
        }
        // Containers a level or two deep; deeper is an app's data, not its merge state.
        guard depth < 2 else { return ([], []) }
        var found: (records: [MergeRecord], notes: [Message]) = ([], [])
        if let dict = value.dictionaryValue {
            for key in dict.keys.sorted() {
                guard let inner = dict[key] else { continue }
                let more = tokens(
                    in: inner, path: "\(name)/\(key)", path: path, storeUUID: storeUUID, depth: depth + 1, leaf: key)
                found.records += more.records
                found.notes += more.notes
            }
        } else if case .array(let items) = value {
            for (i, inner) in items.enumerated() {
                let more = tokens(
                    in: inner, path: "\(name)[\(i)]", path: path, storeUUID: storeUUID, depth: depth + 1, leaf: "")
                found.records += more.records
                found.notes += more.notes
            }
        }
        return found
    }

    /// The store UUID a key names (`HistoryToken<storeUUID>`), if it names one.
    static func storeUUID(in key: String) -> String? {
        guard
            let range = key.range(
                of: "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
                options: .regularExpression)
        else {
            return nil
        }
        return String(key[range])
    }

    /// Whether a key's name says it keeps a merge position (worth a note when its value is none).
    private static func looksLikeMergeState(_ key: String) -> Bool {
        let lower = key.lowercased()
        return ["history", "token", "lasttransaction", "merge"].contains { lower.contains($0) }
    }

    /// The top-level dictionary of the plist at `path`, and its format.
    public static func loadDictionary(_ path: String) throws -> (
        dictionary: [String: PlistValue], format: PropertyList.Format
    ) {
        guard let data = FileContents.read(path) else {
            throw MergeStateError.unreadable(path: path)
        }
        return try dictionary([UInt8](data), path: path)
    }

    package static func dictionary(_ bytes: [UInt8], path: String) throws -> (
        dictionary: [String: PlistValue], format: PropertyList.Format
    ) {
        let decoded: (value: PlistValue, format: PropertyList.Format)
        guard !bytes.isEmpty else { throw MergeStateError.notAPlist(path: path, reason: "empty file") }
        // A token file (an archive, SwiftData's JSON) is read with --token.
        if HistoryTokenDecoder.isTokenArchive(bytes)
            || (JSONText.looksLikeJSON(bytes) && (try? JSONTokenDecoder.decode(json: bytes, source: path)) != nil)
        {
            throw MergeStateError.tokenNotDefaults(path: path)
        }
        do {
            decoded = try PropertyList.decode(bytes)
        } catch PlistError.notAPropertyList {
            throw MergeStateError.notAPlist(path: path, reason: "neither binary nor XML")
        } catch {
            throw MergeStateError.notAPlist(path: path, reason: "\(error)")
        }
        guard let dict = decoded.value.dictionaryValue else { throw MergeStateError.notADictionary(path: path) }
        return (dict, decoded.format)
    }

    /// The position a known-format key holds: a date, a token (an archive, or
    /// JSON as data or a string), or why neither.
    public static func position(_ value: PlistValue, format: PropertyList.Format, source: String) -> MergePosition {
        if let json = jsonBytes(value) {
            do {
                return .token(try JSONTokenDecoder.decode(json: json, source: source))
            } catch {
                return .unreadable("\(error)")
            }
        }
        switch value {
        case .date(let d):
            return .date(d, wholeSeconds: format == .xml && d == d.rounded())
        case .data(let bytes):
            do {
                return .token(try HistoryTokenDecoder.decode(archive: bytes, source: source))
            } catch {
                return .unreadable("\(error)")
            }
        default:
            return .unreadable("\(source): expected a date or an archived token, found \(value.kindName)")
        }
    }

    /// A token under an arbitrary key: decoded when it is one; a damaged archive
    /// is reported only when the key says it holds a token.
    private static func tokenPosition(_ bytes: [UInt8], key: String, source: String) -> MergePosition? {
        if HistoryTokenDecoder.isTokenArchive(bytes) {
            do {
                return .token(try HistoryTokenDecoder.decode(archive: bytes, source: source))
            } catch {
                return .unreadable("\(error)")
            }
        }
        guard key.lowercased().contains("token") else { return nil }
        do {
            return .token(try HistoryTokenDecoder.decode(archive: bytes, source: source))
        } catch {
            return .unreadable("\(error)")
        }
    }

    /// The bytes of a `<data>` or `<string>` value that holds JSON text (a SwiftData token is stored either way).
    package static func jsonBytes(_ value: PlistValue) -> [UInt8]? {
        let bytes: [UInt8]
        switch value {
        case .data(let b): bytes = b
        case .string(let s): bytes = Array(s.utf8)
        default: return nil
        }
        return JSONText.looksLikeJSON(bytes) ? bytes : nil
    }

    /// A JSON token under an arbitrary key: its position, or why the JSON is not
    /// taken for a token (`failure`); a key that says it holds
    /// a token keeps a damaged one as unreadable. A map of other stores' UUIDs
    /// to numbers is taken for a (foreign) token only under such a key: an app's
    /// setting may map UUIDs to counts.
    private static func jsonPosition(_ json: [UInt8], key: String, source: String, storeUUID: String?) -> Result<
        MergePosition, TokenError
    > {
        let saysToken = key.lowercased().contains("token")
        do {
            let token = try JSONTokenDecoder.decode(json: json, source: source, forStore: storeUUID)
            if !saysToken, let storeUUID, token.transactionNumber(forStore: storeUUID) == nil {
                return .failure(
                    .notAToken(
                        source: source,
                        reason:
                            """
                            JSON that maps other UUIDs than this store's to numbers, under a key that does not \
                            say it holds a token
                            """
                    ))
            }
            return .success(.token(token))
        } catch let error as TokenError {
            if case .notAToken = error { return .failure(error) }
            return saysToken ? .success(.unreadable("\(error)")) : .failure(error)
        } catch {
            return .success(.unreadable("\(error)"))
        }
    }
}

/// Reads token files (`token.data`, or a plist holding a token) as merge records.
public enum TokenFileReader {
    /// The record for the token in `path`, for `actor`; a damaged token
    /// becomes an ``MergePosition/unreadable(_:)`` position, a missing file an error.
    /// JSON that maps no store to a transaction is not a token: it throws
    /// ``TokenError/notAToken(source:reason:)``, for the caller to note and skip. Shared defaults
    /// (a plist of several tokens, or of settings) throw, for the caller to name `--defaults`.
    public static func read(path: String, actor: String, storeUUID: String? = nil) throws -> MergeRecord {
        guard let data = FileContents.read(path) else {
            throw MergeStateError.unreadable(path: path)
        }
        return try read(bytes: [UInt8](data), path: path, actor: actor, storeUUID: storeUUID)
    }

    /// The record for the token in `bytes`, read from the file `path` names (a backup's or an archive's).
    /// A dictionary of tokens keyed by store identifier gives `storeUUID`'s entry.
    public static func read(bytes: [UInt8], path: String, actor: String, storeUUID: String? = nil) throws -> MergeRecord
    {
        let position: MergePosition
        do {
            position = .token(
                JSONText.looksLikeJSON(bytes)
                    ? try JSONTokenDecoder.decode(json: bytes, source: path, forStore: storeUUID)
                    : try HistoryTokenDecoder.decode(fileBytes: bytes, source: path))
        } catch let error as TokenError {
            if case .notAToken = error { throw error }
            if error.isOtherKindOfFile { throw error }
            position = .unreadable("\(error)")
        } catch {
            position = .unreadable("\(error)")
        }
        var record = MergeRecord(actor: actor, position: position, source: path, keyFormat: nil)
        record.file = path
        return record
    }
}

extension PlistValue {
    /// The history token this defaults value holds (an archive, or SwiftData's JSON as data or a
    /// string), and whether it is an archive; nil for any other value.
    public var heldToken: (token: HistoryToken, isArchive: Bool)? {
        guard case .token(let token) = DefaultsReader.position(self, format: .binary, source: "") else { return nil }
        return (token, dataValue.map(HistoryTokenDecoder.isTokenArchive) == true)
    }
}
