/// "1 transaction", "3 transactions": a count with its noun, plural unless one
/// (nouns whose plural adds an s: transaction, change, key, actor, day, author).
public func plural(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

/// A count of days as messages give it (`wholeDescription`), "1 day" or "3 days".
public func days(_ value: Double) -> String {
    let whole = value.wholeDescription
    return "\(whole) day\(whole == "1" ? "" : "s")"
}
