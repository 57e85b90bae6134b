import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryReading
@testable import HistoryWrites

/// Reads split over the cores use those the process may run on.
@Suite struct CoresTests {
    @Test func allowedProcessorsAreCountedFromTheirList() {
        #expect(Cores.allowedCount("Name:\tcdhist\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed:\t1") == 2)
        #expect(Cores.allowedCount("Cpus_allowed_list:\t0-3,6,8-9\n") == 7)
        #expect(Cores.allowedCount("Cpus_allowed_list:\t5") == 1)
        #expect(Cores.allowedCount("Name:\tcdhist\n") == nil)
        #expect(Cores.allowedCount("Cpus_allowed_list:\t3-1") == nil)
        #expect(Cores.allowedCount("Cpus_allowed_list:\tx") == nil)
        #expect((1...16).contains(Cores.usable))
    }
}
