import HistoryReading

/// Which actors deleting transactions breaks, and how: the one rule that `actors`' cleaner
/// rows, the purge preview, `check` and the report share. Given the deleted transactions of
/// one pass through the store, it says for each actor with a position:
/// - **expired**: the transaction its token names is deleted;
/// - **missed changes**: transactions others wrote after its position are deleted. A token's
///   position and a date read from a binary plist are exact: every transaction after them is
///   unmerged. A date read from an XML plist has lost its fraction: transactions within the
///   second after it may or may not be merged, and are counted as a range, never as merged.
package struct Breakage {
    /// An actor's position as the deletion is checked against it.
    package struct Position {
        var name: String
        var kind: ActorKind
        var tokenNumber: Int64?
        /// Transactions after this are surely unmerged.
        var surely: ScanBound
        /// Transactions after this may be unmerged (a whole-second date); nil when exact.
        var perhaps: ScanBound?

        /// The position of an actor with a token or a date; nil for one without.
        init?(name: String, kind: ActorKind, tokenNumber: Int64?, date: Double?, wholeSeconds: Bool) {
            self.name = name
            self.kind = kind
            self.tokenNumber = tokenNumber
            if let tokenNumber {
                surely = .afterNumber(tokenNumber)
            } else if let date {
                // The app's own date is within the second after a whole-second one: from its end, surely after it.
                surely = wholeSeconds ? .fromDate(date + 1) : .afterDate(date)
                perhaps = wholeSeconds ? .afterDate(date) : nil
            } else {
                return nil
            }
        }

        package init?(_ actor: ActorReport) {
            self.init(
                name: actor.name, kind: actor.kind, tokenNumber: actor.tokenNumber, date: actor.positionDate,
                wholeSeconds: actor.positionKeepsWholeSeconds)
        }
    }

    private let positions: [Position]
    /// Only the transactions of these authors are deleted (a cleaner that deletes only what
    /// its actors wrote); nil: every transaction given.
    private let onlyBy: Set<String>?
    /// For each position whose token's transaction is given: that transaction's author.
    private var tokenAuthors: [Int: Int] = [:]
    private var surely: [AuthorTallies]
    private var perhaps: [AuthorTallies]

    package init(_ positions: [Position], onlyBy: Set<String>? = nil) {
        self.positions = positions
        self.onlyBy = onlyBy
        surely = Array(repeating: AuthorTallies(), count: positions.count)
        perhaps = surely
    }

    /// `t` is deleted (if its author is among `onlyBy`).
    package mutating func delete(_ t: ScannedTransaction) {
        for i in positions.indices {
            let p = positions[i]
            if p.tokenNumber == t.number { tokenAuthors[i] = t.author }
            if p.surely.holds(t) { surely[i].add(t) }
            if let bound = p.perhaps, bound.holds(t) { perhaps[i].add(t) }
        }
    }

    /// What the deletion does to `actors` (by name): actors already broken, batch actors
    /// and those without a position are not broken again.
    package func consequences(_ actors: [ActorReport], authorNames: [String?]) -> [Consequence] {
        func deleted(_ author: String?) -> Bool { onlyBy.map { f in author.map(f.contains) ?? false } ?? true }
        return positions.indices.compactMap { i -> Consequence? in
            guard let actor = actors.first(where: { $0.name == positions[i].name && $0.kind == positions[i].kind }),
                actor.hasBreakablePosition, !actor.status.isBroken
            else { return nil }
            if let author = tokenAuthors[i], deleted(author < authorNames.count ? authorNames[author] : nil) {
                return .expired(actor)
            }
            func others(_ tallies: AuthorTallies) -> Int {
                tallies.sorted(names: authorNames).filter { deleted($0.author) && !actor.isOwn($0.author) }.reduce(0) {
                    $0 + $1.tally.count
                }
            }
            let missed = others(surely[i])
            let atMost = positions[i].perhaps == nil ? nil : others(perhaps[i])
            guard max(missed, atMost ?? 0) > 0 else { return nil }
            return .missedChanges(actor, transactions: missed, atMost: atMost)
        }
    }
}
