/// `actor-expired`: an actor's token names a purged transaction, so Core Data
/// fails its history fetch with error 134301.
struct ActorExpiredRule: CheckRule {
    let id = "actor-expired"
    let severity = Severity.error
    let summary = "an actor's history token expired (Core Data error 134301)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        (c.mergeState?.actors ?? []).filter { $0.status == .expired }.map { a in
            finding("\(a.name): \(a.explanation). Fix: \(a.advice).",
                    ["actor": .string(a.name), "tokenTransactionNumber": a.tokenNumber.map { .integer($0) } ?? .null])
        }
    }
}
