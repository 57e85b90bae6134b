import ArgumentParser
import HistoryKit

/// Where `repair-defaults` moves an actor's merge position: a date or transaction, the oldest
/// or newest transaction, or nowhere (its key removed).
struct RepairTargetOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Move it to this date or tx:N.", valueName: "position"))
    var to: String?

    @Flag(
        name: .customLong("to-oldest"),
        help: "Move it just before the oldest surviving transaction (it merges everything left).")
    var toOldest = false

    @Flag(name: .customLong("to-latest"), help: "Move it to the newest transaction (it is up to date).")
    var toLatest = false

    @Flag(help: "Remove the actor's key.")
    var remove = false

    func validate() throws {
        let chosen = [to != nil, toOldest, toLatest, remove].filter { $0 }.count
        guard chosen == 1 else {
            throw ValidationError("give exactly one of --to, --to-oldest, --to-latest and --remove")
        }
    }

    /// The target the options name; `hasStore`: a store was given, which a token's position needs.
    func target(utc: Bool, hasStore: Bool) throws -> RepairTarget {
        if remove { return .remove }
        if toOldest { return .oldest }
        if toLatest { return .latest }
        switch try PositionParser(utc: utc).bound(to ?? "", option: "--to") {
        case .date(let d): return .date(d)
        case .transaction(let n): return .transaction(n)
        case .token(let t):
            guard hasStore else { throw ValidationError("--to token: needs --store and a token of that store") }
            return .token(t)
        }
    }
}
