/// Names like a mistyped one: an author for a merge position saved under a
/// slightly different name (`[1,O]` for `[1,0]`), a command for `chek`.
public enum NameSuggestion {
    /// Names compared character by character up to this length; longer ones
    /// (untrusted strings of any size) only by prefix.
    static let comparedLength = 256

    /// The candidates like `name`, closest first (ties in their given order): at
    /// most a third of the longer name's characters apart (at least one), ignoring
    /// case, or one a prefix of the other.
    public static func closest(to name: String, among candidates: some Sequence<String>) -> [(
        name: String, distance: Int
    )] {
        let target = Array(name.lowercased())
        var found: [(name: String, distance: Int, order: Int)] = []
        for (order, candidate) in candidates.enumerated() where candidate != name {
            let other = Array(candidate.lowercased())
            let limit = max(1, max(target.count, other.count) / 3)
            let isPrefix =
                !target.isEmpty && !other.isEmpty && (other.starts(with: target) || target.starts(with: other))
            if let d = distance(target, other, limit: limit) {
                found.append((candidate, d, order))
            } else if isPrefix {
                found.append((candidate, abs(other.count - target.count), order))
            }
        }
        return found.sorted { ($0.distance, $0.order) < ($1.distance, $1.order) }.map { ($0.name, $0.distance) }
    }

    /// The Levenshtein distance between `a` and `b` when it is at most `limit`; nil beyond it.
    static func distance(_ a: [Character], _ b: [Character], limit: Int) -> Int? {
        guard abs(a.count - b.count) <= limit, a.count <= comparedLength, b.count <= comparedLength else { return nil }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = Array(repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
                rowMinimum = min(rowMinimum, current[j])
            }
            // Every later row is at least this row's minimum.
            if rowMinimum > limit { return nil }
            swap(&previous, &current)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}
