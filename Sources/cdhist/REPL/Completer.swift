import CLineEditor
import Foundation
import HistoryKit

/// Tab completion: command names, option names, and values known from the
/// store (entities, authors, contexts, bundles, processes, actors, `tx:`
/// numbers) or fixed lists; file paths for options that take files.
final class Completer {
    private let env: REPLEnvironment
    private var optionCache: [String: [String]] = [:]
    /// Safe unchecked: the line editor asks for completions on the session's thread only, one
    /// call after another (the first fills them, the next ones read them in turn).
    nonisolated(unsafe) private static var candidates: [String] = []
    nonisolated(unsafe) private static var nextIndex = 0

    static let fileOptions: Set<String> = [
        "--defaults", "--model", "--token", "--out", "--backup", "--group-container", "--store",
    ]
    static let fileCommands: Set<String> = ["open", "defaults", "model"]

    init(env: REPLEnvironment) {
        self.env = env
    }

    /// The line editor's attempted-completion hook: matches for `text` starting at `start` in the line.
    func complete(text: String, start: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        let buffer = String(cString: cdhist_line_text())
        var before = String(buffer.utf8.prefix(start)).flatMap { $0 } ?? ""
        // GNU Readline starts a quoted word after its quote: the words before end before the quote.
        if cdhist_line_open_quote() != 0, let last = before.last, last == "'" || last == "\"" { before.removeLast() }
        let words = (try? LineSplitter.split(before)) ?? before.split(separator: " ").map(String.init)
        cdhist_line_set_append(32)  // a space after a full match
        guard let command = words.first else {
            return matches(
                text,
                LineRunner.commandNames + ["open", "defaults", "model", "format", "help", "clear", "quit", "exit"])
        }
        let previous = words.last ?? ""
        // --token takes a file, or a literal of the open store once its UUID is begun.
        if previous == "--token", !text.isEmpty, let uuid = try? env.openStore().storeUUID,
            uuid.hasPrefix(text.uppercased()) || text.uppercased().hasPrefix(uuid)
        {
            return matches(text.uppercased() == text ? text : text.uppercased(), recent { $0.token.description })
        }
        if Self.fileCommands.contains(command) && words.count == 1 || Self.fileOptions.contains(previous) {
            // Files and folders, also inside a backup or an archive the name goes into, quoted as
            // the line reads them back (a space in a folder's name); a folder is typed on.
            // libedit splits words at blanks, quoted or not, but keeps an escaped blank in the word:
            // names are escaped with backslashes there, and quoted with GNU Readline.
            let escaping = cdhist_line_keeps_quoted_words() == 0
            let names = StoreNameCompletion.names(StoreNameCompletion.typedWord(text))
            let folder = names.count == 1 && names[0].hasSuffix("/")
            if escaping { return matches(text, names, append: folder ? 0 : 32, escaped: true) }
            return matches(text, names, append: folder ? 0 : 32, quoting: true, typedOn: folder)
        }
        if command == "help" || command == "format" {
            return matches(text, command == "help" ? LineRunner.commandNames : OutputFormat.allCases.map(\.rawValue))
        }
        // A value may begin with `-` (Photos' context names do): the option's values come first.
        // Read once: the values of --context and the like come from a scan of the store.
        let values = previous.hasPrefix("-") ? values(for: previous, text: text) : []
        if text.hasPrefix("-"), !values.contains(where: { $0.hasPrefix(text) }) {
            return matches(text, options(of: command))
        }
        // An object ID: `Entity/p`, then the keys of its recently changed objects (no space after `Entity/p`).
        if previous == "--object" || (command == "object" && words.count == 1), let store = try? env.openStore() {
            let ids = ObjectCompletion.objects(store, prefix: text)
            return matches(text, ids, append: ids.count == 1 && ids[0].hasSuffix("/p") ? 0 : 32)
        }
        return matches(text, values, quoting: true)
    }

    /// Values for the option before the cursor.
    private func values(for option: String, text: String) -> [String] {
        let store = try? env.openStore()
        func field(_ f: TransactionField) -> [String] {
            ((try? store?.fieldSummaries(f, countingChanges: false)) ?? []).compactMap { $0.value } + ["none"]
        }
        switch option {
        case "--entity": return store?.catalog.entities.map(\.name) ?? []
        case "--author", "--actor", "--batch-actor":
            var names = field(.author)
            names += MergeStateRequest(defaults: env.defaults, now: 0).actorNames(storeUUID: store?.storeUUID)
            return Array(Set(names)).sorted()
        case "--context": return field(.contextName)
        case "--bundle": return field(.bundleID)
        case "--process": return field(.processID)
        case "--type": return ["insert", "update", "delete"]
        case "--format": return OutputFormat.allCases.map(\.rawValue)
        case "--strategy": return CleanerStrategy.allCases.map(\.rawValue)
        case "--by": return ["author", "context", "bundle", "process"]
        case "--key-format": return ["phtk", "tracker", "timestamp", "appwise"]
        case "--after", "--before", "--to":
            if text.hasPrefix("token:") { return recent { "token:" + $0.token.description } }
            guard text.hasPrefix("tx:") else { return ["tx:", "token:", "now", "1d", "7d"] }
            return recent { "tx:\($0.number)" }
        default: return []
        }
    }

    /// The newest transactions of the open store, each as `text` makes it (`tx:N`, a token literal).
    private func recent(_ text: (Transaction) -> String) -> [String] {
        guard let store = try? env.openStore() else { return [] }
        var values: [String] = []
        try? store.readTransactions(HistoryQuery(limit: 2000, order: .descending), decoder: nil) {
            try $0.forEach { tx, _ in values.append(text(tx)) }
        }
        return values
    }

    /// Option names of `command`, read from its help text.
    private func options(of command: String) -> [String] {
        if let cached = optionCache[command] { return cached }
        guard let type = CDHist.configuration.subcommands.first(where: { $0.configuration.commandName == command })
        else { return [] }
        let help = CDHist.helpMessage(for: type)
        var found: [String] = []
        for word in help.split(whereSeparator: { " ,\n<>[]".contains($0) }) where word.hasPrefix("--") {
            // Only the name: not the `=` of an example, nor the punctuation of a sentence (`--top;`,
            // `--allow-expire)`).
            let name = "--" + String(word.dropFirst(2).prefix { $0.isLetter || $0.isNumber || $0 == "-" })
            if !found.contains(name) { found.append(name) }
        }
        optionCache[command] = found
        return found
    }

    /// The candidates beginning with `text`; with `quoting`, values are inserted as the line
    /// reads them back (a value with a space or beginning with `-` in single quotes). `typedOn`:
    /// a single candidate is a folder to type on into, its quote left open.
    private func matches(
        _ text: String, _ all: [String], append: Int32 = 32, quoting: Bool = false,
        typedOn: Bool = false, escaped: Bool = false
    ) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        // Inside a quote the user opened, GNU Readline passes the word without it and closes it itself.
        let opened = quoting && cdhist_line_open_quote() != 0
        // libedit passes the quote (or the escapes): the value is matched without it and inserted quoted again.
        let typed =
            escaped
            ? StoreNameCompletion.typedWord(text)
            : quoting && !opened && (text.hasPrefix("'") || text.hasPrefix("\"")) ? String(text.dropFirst()) : text
        // A value with a control character is not offered: the editor would send it to the terminal when listing.
        let raw = all.filter { $0.hasPrefix(typed) && !$0.unicodeScalars.contains { TerminalText.escape($0) != nil } }
        Completer.candidates =
            escaped ? raw.map(LineSplitter.escaped) : quoting && !opened ? raw.map(LineSplitter.quotedIfNeeded) : raw
        Completer.nextIndex = 0
        return cdhist_line_matches(
            text, append,
            { _, _ in
                guard Completer.nextIndex < Completer.candidates.count else { return nil }
                defer { Completer.nextIndex += 1 }
                return strdup(Completer.candidates[Completer.nextIndex])
            },
            quoting && !opened && (raw.count > 1 || typedOn)
                ? Self.commonStart(of: raw, keepsQuotedWords: cdhist_line_keeps_quoted_words() != 0) : nil)
    }

    /// What several values needing quotes have in common, as far as it can be typed on: an open
    /// quote and their common prefix (up to a blank or quote when the editor would split the quoted
    /// word there: libedit); the next Tab completes the rest. Nil when none needs quoting.
    static func commonStart(of values: [String], keepsQuotedWords: Bool) -> String? {
        guard values.contains(where: { LineSplitter.quotedIfNeeded($0) != $0 }), var common = values.first else {
            return nil
        }
        for value in values.dropFirst() { common = String(zip(common, value).prefix { $0 == $1 }.map(\.0)) }
        let stops = keepsQuotedWords ? "'" : " \t\n\r'\"\\"
        return "'" + common.prefix { !stops.contains($0) }
    }
}
