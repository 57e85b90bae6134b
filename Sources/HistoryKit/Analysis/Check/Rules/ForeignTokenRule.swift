/// `foreign-token`: a saved token names another store (error 134501).
struct ForeignTokenRule: CheckRule {
    let id = "foreign-token"
    let severity = Severity.error
    let summary = "a saved history token is for another store (Core Data error 134501)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        (c.mergeState?.actors ?? []).filter { $0.status == .foreignToken }.map { a in
            finding("\(a.name): \(a.explanation). Fix: \(a.advice).",
                    ["actor": .string(a.name), "source": .string(a.records.first?.source ?? "")])
        }
    }
}
