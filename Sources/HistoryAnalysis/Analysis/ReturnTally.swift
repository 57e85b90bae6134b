/// For each author, the transactions it wrote after another author's, having written before
/// them: a process that saved, let others save, and saved again. Counted after an actor's
/// position, these are saves made while the others' changes were there to merge.
struct ReturnTally {
    private var previous: Int?
    private var seen = Set<Int>()
    /// Per author index, its transactions that came back after others'.
    private(set) var returns: [Int: Int] = [:]

    /// Adds the next transaction, by the author at index `author`.
    mutating func add(_ author: Int) {
        if let previous, previous != author, seen.contains(author) { returns[author, default: 0] += 1 }
        seen.insert(author)
        previous = author
    }
}
