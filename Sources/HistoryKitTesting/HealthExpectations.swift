import Foundation
import HistoryKit

extension AppHistory {
    /// What `cdhist check` finds on the store with its merge state, worst first: the findings of
    /// `severity` or worse.
    public func findings(atLeast severity: Severity = .info, now: Date? = nil) throws -> [Finding] {
        let opened = try HistoryStore.open(store)
        defer { opened.close() }
        let request = HealthCheckRequest(
            mergeState: mergeState(now: now), config: CheckConfig(), only: [], skip: [], modelPath: modelPath,
            nextModelPath: nil, failOn: severity, forAPage: false)
        return try HealthCheck.run(opened, request).failing
    }

    /// Runs `cdhist check`'s rules on the store with its merge state and records a test failure
    /// for each finding of `severity` or worse, as `cdhist check` words it: severity, rule, what
    /// is wrong and what to do. Throws when the store or a merge-state file cannot be read.
    public func expectHealthy(
        failingAt severity: Severity = .warning, now: Date? = nil, fileID: String = #fileID,
        filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws {
        let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        for finding in try findings(atLeast: severity, now: now) {
            TestFailure.record(Self.describe(finding, store: store), at: location)
        }
    }

    /// A finding as `cdhist check` words it, after the store: `Tasks.sqlite: error actor-expired: widget: … Fix: …`.
    static func describe(_ finding: Finding, store: String) -> String {
        "\(store): \(finding.severity.rawValue) \(finding.ruleID): \(finding.message)"
    }
}
