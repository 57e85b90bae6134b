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
        let list = together.map { w in
            """
            \(w.bundleID ?? "no bundle ID") (\(w.processID ?? "no process")): \
            \(plural(w.transactions, "transaction")) 
            """
                + (w.firstTransaction == w.lastTransaction
                    ? "#\(w.firstTransaction)" : "#\(w.firstTransaction)–#\(w.lastTransaction)")
        }
        return [
            finding(
                """
                CloudKit mirroring wrote this store's history from \(together.count) processes at the same time: \
                \(list.joined(separator: "; ")). Only one process may mirror a store: two exporters and importers \
                work against each other (duplicates, lost or repeated changes). Open the store with \
                cloudKitContainerOptions set to nil everywhere but the app, and let the extensions use a plain \
                container.
                """,
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
