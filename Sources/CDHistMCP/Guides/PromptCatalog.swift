import MCP

/// Prompts for the questions users ask most: each a short plan that calls the tools.
enum PromptCatalog {
    struct Definition: Sendable {
        let prompt: Prompt
        /// The plan, given the prompt's arguments.
        let plan: @Sendable ([String: String]) -> String
    }

    /// Lists the prompts on `server` and gives each one's plan.
    static func serve(on server: Server) async {
        await server.withMethodHandler(ListPrompts.self) { _ in .init(prompts: all.map(\.prompt)) }
        await server.withMethodHandler(GetPrompt.self) { params in
            guard let definition = all.first(where: { $0.prompt.name == params.name }) else {
                throw MCPError.invalidParams("no prompt '\(params.name)' (prompts/list lists them)")
            }
            let arguments = params.arguments ?? [:]
            for argument in definition.prompt.arguments ?? [] where argument.required == true {
                guard arguments[argument.name] != nil else {
                    throw MCPError.invalidParams("prompt \(params.name) needs '\(argument.name)'")
                }
            }
            return .init(
                description: definition.prompt.description, messages: [.user(.text(text: definition.plan(arguments)))])
        }
    }

    static let store = Prompt.Argument(
        name: "store", description: "The store's path (find_stores finds it).", required: true)
    static let defaults = Prompt.Argument(
        name: "defaults", description: "The App Group's shared defaults plist, where each actor keeps its position.",
        required: false)

    static let all: [Definition] = [
        Definition(
            prompt: Prompt(
                name: "why_missing_changes",
                description: "Why does this app, widget or extension miss changes another process saved?",
                arguments: [
                    store, defaults,
                    .init(name: "actor", description: "The actor that misses changes (its author).", required: false),
                ]),
            plan: { arguments in
                let store = arguments["store"] ?? "STORE"
                let defaults = arguments["defaults"].map { ", defaults \"\($0)\"" } ?? ""
                let actor = arguments["actor"] ?? "the actor that misses changes"
                return """
                    Find out why \(actor) misses changes in the Core Data store \(store).
                    1. Call actors with store "\(store)"\(defaults). Read \(actor)'s status, its merge position, \
                    its pending transactions and its advice.
                    2. If its status is expired or missed-changes, history it had not merged was purged: call \
                    check with the same arguments to see which rule reports it, and purge_preview with the \
                    cleaner's strategy to see the cleaner's cut-off.
                    3. If it is behind, call transactions with store "\(store)" and after set to its position \
                    (tx:N) to list what it has not merged, and by whom.
                    4. Answer with what happened, from the tools' results only, and the advice they give.
                    """
            }),
        Definition(
            prompt: Prompt(
                name: "is_it_safe_to_purge",
                description: "Is it safe to purge history before a date, a transaction or as a cleaner would?",
                arguments: [
                    store, defaults,
                    .init(
                        name: "before", description: "A date, tx:N or token:FILE to purge before.", required: false),
                    .init(
                        name: "strategy", description: "A cleaner's strategy (purge_preview's schema lists them).",
                        required: false),
                ]),
            plan: { arguments in
                let store = arguments["store"] ?? "STORE"
                let defaults = arguments["defaults"].map { ", defaults \"\($0)\"" } ?? ""
                let cut =
                    arguments["before"].map { ", before \"\($0)\"" } ?? arguments["strategy"].map {
                        ", strategy \"\($0)\""
                    } ?? ""
                return """
                    Decide whether a purge of the history of \(store) is safe.
                    1. Call actors with store "\(store)"\(defaults) to see every actor's merge position.
                    2. Call purge_preview with store "\(store)"\(defaults)\(cut). Read what it would delete, and \
                    which actors it would expire or make miss changes.
                    3. It is safe only when no actor breaks. Say which actor holds the cut-off back, and what \
                    that actor must merge first.
                    Nothing is deleted by these tools.
                    """
            }),
        Definition(
            prompt: Prompt(
                name: "what_did_this_save_change",
                description: "What did one save (a history transaction) change, object by object?",
                arguments: [
                    store,
                    .init(name: "transaction", description: "The transaction: N, tx:N or a token.", required: true),
                ]),
            plan: { arguments in
                let store = arguments["store"] ?? "STORE"
                let transaction = arguments["transaction"] ?? "N"
                return """
                    Explain what transaction \(transaction) of \(store) changed.
                    1. Call show with store "\(store)", transaction "\(transaction)" and values true: its author, \
                    context, process, and each change with its updated properties (and values before and after \
                    while the -wal holds them).
                    2. For an object whose story matters, call object with store "\(store)" and its id.
                    3. Summarize who saved, what was inserted, updated (which properties) and deleted.
                    """
            }),
    ]
}
