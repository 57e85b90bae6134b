/// `free-pages`: many free pages (after a purge): VACUUM would shrink the file.
struct FreePagesRule: CheckRule {
    let id = "free-pages"
    let severity = Severity.info
    let summary = "free pages a VACUUM would give back"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let space = c.statistics.space
        guard space.pageCount > 0 else { return [] }
        let share = Double(space.freelistCount) / Double(space.pageCount)
        guard share > c.config.maxFreeShare else { return [] }
        return [
            finding(
                RuleMessages.freePages(free: space.freelistCount, pages: space.pageCount, share: share),
                [
                    "freePages": .integer(space.freelistCount), "pages": .integer(space.pageCount),
                    "freeShare": .real(share),
                ])
        ]
    }
}
