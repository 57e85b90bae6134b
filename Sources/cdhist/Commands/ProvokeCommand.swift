import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist provoke SCENARIO STORE --actor A`: put a store into a failure an app must survive;
/// `cdhist provoke --undo STORE` puts it back.
struct ProvokeCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "provoke",
        abstract: "Put a store into a failure the app must survive (preview unless --execute); --undo puts it back.",
        usage: "cdhist provoke <scenario> <store> [--actor <name>] [<options>]\ncdhist provoke --undo <store>",
        discussion: CommandHelp.provoke)

    static let sessionStore = SessionStorePlacement.storeOption, readsSessionDefaults = true

    @Argument(
        help: ArgumentHelp(
            "The failure: \(ProvokeScenario.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "scenario"),
        completion: .list(ProvokeScenario.allCases.map(\.rawValue)))
    var scenario: String?

    @Argument(help: ArgumentHelp("The Core Data store file.", valueName: "store"), completion: .file())
    var store: String?

    // As a session or --booted gives the store.
    @Option(name: .customLong("store"), help: .hidden) var storeOption: String?
    @OptionGroup var booted: BootedOptions

    @OptionGroup var target: ProvokeActorOptions

    /// The merge state, read as every command reads it.
    @OptionGroup var mergeState: MergeSourceOptions

    @Flag(help: "Change the files (after copying each). Without it, only the preview.")
    var execute = false

    @OptionGroup var undoOptions: UndoOptions
    var undo: Bool { undoOptions.undo }

    @OptionGroup var lock: LockOptions
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if undo {
            guard [scenario, store, storeOption, mergeState.groupContainer].compactMap({ $0 }).count == 1, !execute
            else {
                throw ValidationError("give only the store with --undo, without --execute: cdhist provoke --undo STORE")
            }
            return
        }
        guard let scenario, [store, storeOption, mergeState.groupContainer].contains(where: { $0 != nil }) else {
            throw ValidationError(
                "give a scenario and a store: cdhist provoke SCENARIO STORE (or --group-container DIR)")
        }
        guard let kind = ProvokeScenario(rawValue: scenario) else {
            let names = ProvokeScenario.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("unknown scenario '\(scenario)': use \(names)")
        }
        if kind.needsActor && target.actor == nil {
            throw ValidationError("\(scenario) needs --actor: the actor to put into the failure")
        }
    }

    func run(_ context: CommandContext) throws {
        let render = outputOptions.context(in: context)
        let path = try store ?? storeOption ?? (undo ? scenario : nil) ?? mergeState.storePath(nil)
        if undo {
            let (force, preview) = (undoOptions.force, undoOptions.preview)
            if !preview { context.closeSessionStore() }
            let undone =
                try preview
                ? ProvokeBackup.undoPreview(store: path)
                : ProvokeBackup.undo(store: path, force: force, stops: context.writeStops())
            let presenter = ProvokePresenter(time: render.time, store: path)
            return DocumentRenderer.render(presenter.undone(undone, executed: !preview, force: force), context: render)
        }
        guard let scenario = scenario.flatMap(ProvokeScenario.init(rawValue:)) else { return }
        let opened = try context.openStore(path, lockTimeout: lock.lockTimeout)
        let now = try mergeState.evaluationTime(utc: outputOptions.utc)
        let proposal = try ProvocationProposal.make(
            opened,
            ProvokeRequest(
                scenario: scenario, actor: target.actor, by: target.by,
                mergeState: try mergeState.request(now: now, utc: outputOptions.utc)))
        mergeState.printNotes(proposal.mergeState, to: context.console)
        let plan = proposal.plan
        let presenter = ProvokePresenter(
            time: render.time, store: path, mergeStateWords: mergeState.words, storeWords: booted.words)
        guard execute else { return DocumentRenderer.render(presenter.document(plan, result: nil), context: render) }
        context.closeSessionStore()
        let result = try ProvokeExecutor.execute(
            plan, busyTimeout: lock.lockTimeout, stops: context.writeStops()
        ) { line in
            if render.terminal.stderrIsTerminal { context.printError("cdhist: \(line)…") }
        }
        DocumentRenderer.render(presenter.document(plan, result: result), context: render)
    }
}
