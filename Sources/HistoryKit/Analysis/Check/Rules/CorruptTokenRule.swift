/// `corrupt-token`: a saved position cannot be read.
struct CorruptTokenRule: CheckRule {
    let id = "corrupt-token"
    let severity = Severity.error
    let summary = "a saved history token cannot be unarchived"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        (c.mergeState?.actors ?? []).filter { $0.status == .corruptToken }.map { a in
            finding("\(a.name): \(a.explanation). Fix: \(a.advice).",
                    ["actor": .string(a.name), "source": .string(a.records.first?.source ?? "")])
        }
    }
}
