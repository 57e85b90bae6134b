import HistoryReading

/// `two-mirrors`: CloudKit mirroring's transactions were written by more than one bundle ID or
/// process over the same span of history: two processes each mirror the same store (a widget or
/// extension that opens the app's store with CloudKit on), which Core Data does not support.
struct TwoMirrorsRule: CheckRule {
    let id = "two-mirrors"
    let severity = Severity.error
    let summary = "CloudKit mirroring ran in more than one process"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let writers = try MirroringWriter.all(in: c.store).filter { $0.bundleID != nil || $0.processID != nil }
        // One writer after another is an app renamed between versions; two at once mirror twice.
        let together = writers.filter { w in
            writers.contains { o in
                o != w && o.firstTransaction <= w.lastTransaction && w.firstTransaction <= o.lastTransaction
            }
        }
        guard together.count > 1 else { return [] }
        return [
            finding(
                RuleMessages.twoMirrors(together),
                [
                    "writers": .array(
                        together.map { w in
                            var d: [String: PlistValue] = [
                                "transactions": .integer(Int64(w.transactions)),
                                "firstTransaction": .integer(w.firstTransaction),
                                "lastTransaction": .integer(w.lastTransaction),
                            ]
                            if let b = w.bundleID { d["bundleID"] = .string(b) }
                            if let p = w.processID { d["processID"] = .string(p) }
                            return .dictionary(d)
                        })
                ])
        ]
    }
}
