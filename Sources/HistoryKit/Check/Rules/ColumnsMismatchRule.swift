/// `columns-mismatch`: update rows whose ZCOLUMNS disagree with the model
/// (wrong length, or a bit past the entity's last slot).
struct ColumnsMismatchRule: CheckRule {
    let id = "columns-mismatch"
    let severity = Severity.warning
    let summary = "ZCOLUMNS that disagree with the model"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard c.model.model != nil else { return [] }
        let found = try c.store.columnsMismatches(c.store.makeDecoder(model: c.model))
        let (count, first, entities) = (found.count, found.firstChangeID, found.entities)
        guard count > 0 else { return [] }
        return [
            finding(
                RuleMessages.columnsMismatch(count: count, entities: entities, first: first),
                [
                    "changes": .integer(Int64(count)), "firstChangeID": .integer(first ?? 0),
                    "entities": .array(entities.sorted().map { .string($0) }),
                ])
        ]
    }
}
