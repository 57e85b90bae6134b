/// "1 transaction", "3 transactions": a count with its noun, plural unless one.
func plural(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
