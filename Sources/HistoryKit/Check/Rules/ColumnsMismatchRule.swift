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
                """
                \(count) updates of \(entities.sorted().joined(separator: ", ")) have ZCOLUMNS that do not fit \
                the model (first: change \(first ?? 0)). The model given or cached is not the one that wrote \
                them; decode with the right one (\(Control.model)).
                """,
                [
                    "changes": .integer(Int64(count)), "firstChangeID": .integer(first ?? 0),
                    "entities": .array(entities.sorted().map { .string($0) }),
                ])
        ]
    }
}
