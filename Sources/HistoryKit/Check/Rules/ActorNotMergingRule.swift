/// `actor-not-merging`: an actor saved again after others' transactions it had not merged,
/// and its position stayed where it was: it saves but does not merge, or does not store its
/// position (the usual cause of "my widget misses changes").
struct ActorNotMergingRule: CheckRule {
    let id = "actor-not-merging"
    let severity = Severity.warning
    let summary = "an actor saves without merging what others wrote (or without storing its position)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        (c.mergeState?.actors ?? []).filter { $0.kind == .app && !$0.isBatch && $0.pending.ownAfterOthers > 0 }.map {
            a in
            finding(
                RuleMessages.actorNotMerging(a),
                [
                    "actor": .string(a.name), "ownTransactionsAfterPosition": .integer(Int64(a.pending.ownCount)),
                    "ownTransactionsAfterOthers": .integer(Int64(a.pending.ownAfterOthers)),
                    "pendingTransactions": .integer(Int64(a.pending.count)),
                ])
        }
    }
}
