import HistoryReading

/// `author-mismatch`: a merge position saved under a name no transaction has as
/// its author. The app reads its position under one name and writes with
/// another (a typo, a renamed target): its own transactions count as unmerged,
/// and a position under a stale name holds back every cleaner.
struct AuthorMismatchRule: CheckRule {
    let id = "author-mismatch"
    let severity = Severity.warning
    let summary = "a merge position is saved under a name no transaction has as its author"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        (c.mergeState?.actors ?? []).compactMap { a in
            guard a.kind == .app, !a.isDeclared, a.authoredCount == 0, let record = a.records.first else { return nil }
            // A token is no proof of a name (a reader needs no author): only a date, or a name like an author's, is.
            let isDate: Bool
            if case .date = record.position { isDate = true } else { isDate = false }
            guard isDate || !a.similarAuthors.isEmpty else { return nil }
            var data: [String: PlistValue] = ["actor": .string(a.name), "source": .string(record.source)]
            if let best = a.similarAuthors.first {
                data["closestAuthor"] = .string(best.name)
                data["distance"] = .integer(Int64(best.distance))
            }
            return finding(RuleMessages.authorMismatch(a, record: record), data)
        }
    }
}
