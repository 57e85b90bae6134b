/// "1 transaction", "3 transactions": a count with its noun, plural unless one
/// (nouns whose plural adds an s: transaction, change, key, actor, day, author).
public func plural(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

/// A count of days as messages give it (`wholeDescription`), "1 day" or "3 days".
public func days(_ value: Double) -> String {
    let whole = value.wholeDescription
    return "\(whole) day\(whole == "1" ? "" : "s")"
}

/// A length of time as messages give it: "40 minutes", "3 hours", "2 days" (the largest unit
/// it holds a whole one of, rounded down), "12 seconds".
public func span(_ seconds: Double) -> String {
    guard seconds.isFinite, seconds < 1e15 else { return "\(seconds) seconds" }
    let s = Int(max(0, seconds))
    if s >= 86400 { return plural(s / 86400, "day") }
    if s >= 3600 { return plural(s / 3600, "hour") }
    if s >= 60 { return plural(s / 60, "minute") }
    return plural(s, "second")
}
