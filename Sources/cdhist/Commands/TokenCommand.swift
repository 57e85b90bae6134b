import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist token FILE [--store STORE]`: decode a history token and check it against a store.
struct TokenCommand: ParsableCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Decode a history token (token.data, a plist holding one, SwiftData JSON, or STOREUUID:N) and check it against a store.",
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist token [<options>] <token>",
        discussion: "A plist holding several tokens (shared defaults keeping each actor's) shows each under its key. Exit status: 0 when every token is valid for --store (or no store is given), 1 when one is expired or for another store, 2 on errors.")

    static let sessionStore = SessionStorePlacement.storeOption

    @Argument(help: ArgumentHelp("A token file, a plist holding a token, or a literal STOREUUID:N.", valueName: "token"))
    var token: String

    @Option(help: ArgumentHelp("Check the token against this store.", valueName: "store"))
    var store: String?

    @OptionGroup var booted: BootedOptions

    @OptionGroup var lock: LockOptions

    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let context = outputOptions.context()
        let held = try TokenSpec.tokens(fileOrLiteral: token)
        let opened = try store.map { try openStore($0, lockTimeout: lock.lockTimeout) }
        var sections: [Document.Section] = []
        var entries: [JSONValue] = []
        var single: [(String, JSONValue)] = []
        var failed = false
        if held.count > 1 { sections.append(.fields(title: nil, [("Token", token), ("Holds", "\(held.count) tokens, one under each key")])) }
        for (key, decoded) in held {
            var fields: [(String, String)] = held.count > 1 ? [] : [("Token", token)]
            // The store's UUID in the value, not the name: a 42-wide name would push every value to the right.
            for (uuid, n) in decoded.transactionNumbers.sorted(by: { $0.key < $1.key }) {
                fields.append(("Transaction", "#\(n) of store \(uuid)"))
            }
            if decoded.transactionNumbers.count > 1 { fields.append(("Note", "this token names \(decoded.transactionNumbers.count) stores")) }
            var json: [(String, JSONValue)] = [("key", .optional(key)), ("token", HistoryPresenter.json(decoded))]
            if let store, let opened {
                let check = try TokenCheck.evaluate(decoded, in: opened)
                failed = failed || check.status != "valid"
                fields += [("Checked against", "\(store) (\(opened.storeUUID))"), ("Status", check.status), ("Meaning", check.message)]
                json += [("store", .string(store)), ("storeID", .string(opened.storeUUID)), ("status", .string(check.status)),
                         ("message", .string(check.message)), ("transactionNumber", .optional(check.number)),
                         ("transaction", check.transaction.map { HistoryPresenter(time: context.time).json($0) } ?? .null)]
            }
            sections.append(.fields(title: key.map { "Key \($0)" }, fields))
            entries.append(.object(json))
            if held.count == 1 { single = json.filter { $0.0 != "key" } }
        }
        let json: [(String, JSONValue)] = [("source", .string(token))] + single + [("tokens", .array(entries))]
        DocumentRenderer.render(Document(kind: "token", json: json, sections: sections), context: context)
        if failed { throw ExitCode(1) }
    }
}

/// A token checked against a store, as Core Data would use it.
struct TokenCheck {
    var status: String
    var message: String
    var number: Int64?
    var transaction: Transaction?

    static func evaluate(_ token: HistoryToken, in store: HistoryStore) throws -> TokenCheck {
        guard let n = token.transactionNumber(forStore: store.storeUUID) else {
            return TokenCheck(status: "foreign-token",
                              message: "the token names no transaction of this store: Core Data fails with error 134501", number: nil)
        }
        guard let tx = try store.transaction(number: n) else {
            return TokenCheck(status: "expired",
                              message: "transaction #\(n) no longer exists: Core Data fails with error 134301 (history token expired; SwiftData with SwiftDataError.historyTokenExpired)", number: n)
        }
        let pending = try store.countTransactions(HistoryQuery(after: .transaction(n)))
        return TokenCheck(status: "valid",
                          message: "transaction #\(n) exists; fetching history after it returns \(pending) transaction\(pending == 1 ? "" : "s")",
                          number: n, transaction: tx)
    }
}
