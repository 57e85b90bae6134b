import HistoryReading

/// What a store shows of the cleaner that purges its history, said in a finding about its size or age.
enum PurgeEvidence {
    /// "Nothing seems to purge it", or, when history bears a purge's traces, that a cleaner runs
    /// and keeps too much (the oldest remaining transaction named).
    static func sentence(_ statistics: HistoryStatistics) -> Message {
        guard statistics.purgeTraces.anyTrace else {
            return
                """
                Nothing seems to purge it: purge what every actor has merged (\(Control.showActors) shows what \
                each cleaner would delete; then \(Control.purgeByStrategy)) and VACUUM.
                """
        }
        let oldest =
            statistics.transactionNumbers.map { " (the oldest remaining transaction is #\($0.lowerBound))" } ?? ""
        return
            """
            A cleaner purges it\(oldest) but keeps more than this: purge up to what every actor has merged, more \
            often (\(Control.showActors) shows what each cleaner would delete), and VACUUM.
            """
    }
}
