/// "1 transaction", "3 transactions": a count with its noun, plural unless one
/// (nouns whose plural adds an s: transaction, change, key, actor, day, author).
public func plural(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

/// A count of days as messages give it (`wholeDescription`), "1 day" or "3 days".
public func days(_ value: Double) -> String {
    let whole = value.wholeDescription
    return "\(whole) day\(whole == "1" ? "" : "s")"
}

/// A length of time as messages give it: "40 minutes", "3 hours", "2 days": the largest unit
/// it holds a whole one of, rounded down; with `exact`, the largest unit it is a whole number
/// of ("36 hours", not "1 day"). "12 seconds" below a minute.
public func span(_ seconds: Double, exact: Bool = false) -> String {
    guard seconds.isFinite, seconds < 1e15 else { return "\(seconds) seconds" }
    let s = Int(max(0, seconds))
    for (unit, noun) in [(86400, "day"), (3600, "hour"), (60, "minute")] where s >= unit && (!exact || s % unit == 0) {
        return plural(s / unit, noun)
    }
    return plural(s, "second")
}
