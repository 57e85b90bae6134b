import Foundation
import HistoryReading

/// Reads history tokens apps keep as JSON: SwiftData's `DefaultHistoryToken`
/// is `Codable`, and apps store it `JSONEncoder`-encoded under a key or in a
/// file of their own. Its layout is not documented; what is known is that it
/// maps each store's identifier to a transaction number. So any JSON in which
/// an object has a member named by a UUID whose value is an integer is read as
/// a token for those stores, at any depth and whatever the other names.
public enum JSONTokenDecoder {
    /// The token in the JSON text `bytes` from `source`. Throws
    /// ``TokenError/notAToken(source:reason:)`` for JSON that maps no store to a
    /// transaction, ``TokenError/corruptJSON(source:reason:)`` for text that is
    /// not JSON, and ``TokenError/malformedToken(source:reason:)`` when one store
    /// is given two different transactions.
    public static func decode(json bytes: [UInt8], source: String) throws -> HistoryToken {
        try token(in: parse(bytes, source: source), source: source)
    }

    /// `bytes` parsed; text that is not JSON throws ``TokenError/corruptJSON(source:reason:)``.
    private static func parse(_ bytes: [UInt8], source: String) throws -> JSONNode {
        do {
            return try JSONText.parse(bytes)
        } catch {
            throw TokenError.corruptJSON(source: source, reason: "\(error)")
        }
    }

    /// The token `root` holds (see ``decode(json:source:)``).
    private static func token(in root: JSONNode, source: String) throws -> HistoryToken {
        var numbers: [String: Int64] = [:]
        /// A store given a number that is no transaction number: said when no store has one.
        var unusable: (key: String, number: Double)?
        var stack = [root]
        while let node = stack.popLast() {
            switch node {
            case .object(let members):
                for (key, value) in members {
                    if case .integer(let n) = value, UUID(uuidString: key) != nil {
                        let store = key.uppercased()
                        if let other = numbers[store], other != n {
                            throw TokenError.malformedToken(
                                source: source,
                                reason: "it gives store \(key) two transactions, \(min(other, n)) and \(max(other, n))")
                        }
                        numbers[store] = n
                    } else if case .number(let n) = value, UUID(uuidString: key) != nil {
                        // 2^64-1 or 1.5: no store numbers a transaction so; never rounded into one.
                        unusable = unusable ?? (key, n)
                    } else {
                        stack.append(value)
                    }
                }
            case .array(let items):
                stack += items
            default:
                break
            }
        }
        if numbers.isEmpty, let (key, n) = unusable {
            throw TokenError.malformedToken(
                source: source,
                reason:
                    """
                    it gives store \(key) the number \(n), not a transaction number (a whole number up to \
                    \(Int64.max))
                    """
            )
        }
        guard !numbers.isEmpty else {
            throw TokenError.notAToken(
                source: source, reason: "JSON without a store identifier mapped to a transaction number")
        }
        return HistoryToken(transactionNumbers: numbers)
    }

    /// The token for `storeUUID` in JSON text: from a dictionary of tokens keyed by store
    /// identifier (``perStore(json:source:)``) the entry of that store when it has one (the
    /// others are the app's other stores'), else ``decode(json:source:)``'s.
    public static func decode(json bytes: [UInt8], source: String, forStore storeUUID: String?) throws -> HistoryToken {
        let root = try parse(bytes, source: source)
        if let storeUUID, let entries = perStore(root, source: source),
            let mine = entries.first(where: { $0.identifier.caseInsensitiveCompare(storeUUID) == .orderedSame })
        {
            return mine.token
        }
        return try token(in: root, source: source)
    }

    /// The entries of a dictionary of tokens keyed by store identifier, as apps keep SwiftData's
    /// `[String: DefaultHistoryToken]` (`JSONEncoder` writes each token as
    /// `{"storeTokens":{identifier: number}}`, and `HistoryObserver(historyTokens:)` takes them so):
    /// every member of the root object is named by a UUID and holds an object that is a token.
    /// Nil for any other JSON, a single token included.
    public static func perStore(json bytes: [UInt8], source: String) -> [(identifier: String, token: HistoryToken)]? {
        (try? parse(bytes, source: source)).flatMap { perStore($0, source: source) }
    }

    private static func perStore(_ root: JSONNode, source: String) -> [(identifier: String, token: HistoryToken)]? {
        guard case .object(let members) = root, members.count > 0 else { return nil }
        var entries: [(identifier: String, token: HistoryToken)] = []
        for (key, value) in members {
            guard UUID(uuidString: key) != nil, case .object = value,
                let token = try? token(in: value, source: "\(source) [\(key)]")
            else { return nil }
            entries.append((key.uppercased(), token))
        }
        return entries
    }

    /// The identifiers of the other stores a dictionary of tokens keyed by store identifier
    /// holds entries for, beside `storeUUID`'s (empty for any other JSON).
    public static func otherStores(json bytes: [UInt8], source: String, storeUUID: String) -> [String] {
        guard let entries = perStore(json: bytes, source: source),
            entries.contains(where: { $0.identifier.caseInsensitiveCompare(storeUUID) == .orderedSame })
        else { return [] }
        return entries.map(\.identifier).filter { $0.caseInsensitiveCompare(storeUUID) != .orderedSame }
    }

    /// `json` with every number it gives `storeUUID` replaced by `transactionNumber`,
    /// every other byte kept; nil when it gives that store none (or is no JSON).
    public static func rewrite(json: [UInt8], storeUUID: String, to transactionNumber: Int64) -> [UInt8]? {
        guard let members = try? JSONText.integerMembers(json) else { return nil }
        let spans = members.filter { $0.key.caseInsensitiveCompare(storeUUID) == .orderedSame }.map(\.range)
        guard !spans.isEmpty else { return nil }
        var out = json
        for span in spans.reversed() { out.replaceSubrange(span, with: Array(String(transactionNumber).utf8)) }
        return out
    }
}
