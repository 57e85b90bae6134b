import Foundation
import HistoryKit

/// Long lists in tables and summaries: the first few, then how many more; and
/// the authors of a framework family (Core Data's migrations, CloudKit, Apple's
/// frameworks) as one entry. JSON and CSV keep every item.
enum ListSummary {
    /// Rows of a long list a table shows by default.
    static let rows = 10
    /// Items a one-line summary names by default.
    static let inline = 5
    /// The families whose authors a table lists as one entry unless `--all`: authors the
    /// frameworks make one per model version or task (CloudKit's few stay apart, each says what it does).
    static let frameworkFamilies: Set<AuthorFamily> = [.coreDataMigration, .apple]

    /// The first `limit` items (all when nil) and how many are left out.
    static func limited<T>(_ items: [T], to limit: Int?) -> (shown: [T], more: Int) {
        guard let limit, items.count > limit else { return (items, 0) }
        return (Array(items.prefix(limit)), items.count - limit)
    }

    /// The row or phrase that stands for what was left out.
    static func more(_ n: Int) -> String { "… and \(n) more (--all, or JSON)" }

    /// "app 6, widget 3 and 2 more authors with 4": the first `limit` groups (all when nil) with
    /// their counts, then how many authors the rest are and what they count; a name that reads as a
    /// number is quoted, so that "1369" 690 does not read as two counts.
    static func counts<T>(_ groups: [Group<T>], limit: Int?, count: (T) -> Int) -> String {
        let (shown, _) = limited(groups, to: limit)
        var parts = shown.map { g in "\(Self.name(g.label)) \(g.members.reduce(0) { $0 + count($1) })" }.joined(
            separator: ", ")
        let rest = groups.dropFirst(shown.count)
        if !rest.isEmpty {
            let authors = rest.reduce(0) { $0 + $1.members.count }
            let total = rest.reduce(0) { $0 + $1.members.reduce(0) { $0 + count($1) } }
            parts += " and \(plural(authors, "more author")) with \(total)"
        }
        return parts
    }

    /// An author's name as a summary gives it: quoted when it reads as a number.
    static func name(_ label: String) -> String {
        Double(label.trimmingCharacters(in: .whitespaces)) != nil ? "\"\(label)\"" : label
    }

    /// One group: an author on its own, or a family of two or more.
    struct Group<T> {
        var label: String
        var family: AuthorFamily?
        var members: [T]
    }

    /// `items` with the authors of each family in `families` that has two or more
    /// of them grouped in one entry (where its first member was), the rest as they are.
    static func grouped<T>(_ items: [T], author: (T) -> String?, families: Set<AuthorFamily>) -> [Group<T>] {
        var groups: [Group<T>] = []
        var index: [AuthorFamily: Int] = [:]
        let counts = Dictionary(grouping: items.compactMap { AuthorFamily.of(author($0)) }, by: { $0 }).mapValues(
            \.count)
        for item in items {
            let name = author(item)
            if let family = AuthorFamily.of(name), families.contains(family), (counts[family] ?? 0) > 1 {
                if let i = index[family] {
                    groups[i].members.append(item)
                } else {
                    index[family] = groups.count
                    groups.append(
                        Group(
                            label: "\(family.title) (\(counts[family] ?? 0) authors)", family: family, members: [item]))
                }
            } else {
                // As every table writes a missing value, and the filters take it back.
                groups.append(Group(label: name ?? "-", family: nil, members: [item]))
            }
        }
        return groups
    }
}

extension Array {
    /// The elements by `key`, largest first; equal keys keep their order (a family's summed
    /// count can pass the authors listed before it).
    func sortedDescending(by key: (Element) -> Int) -> [Element] {
        enumerated().map { (key($0.element), $0.offset, $0.element) }.sorted { ($1.0, $0.1) < ($0.0, $1.1) }.map(\.2)
    }
}
