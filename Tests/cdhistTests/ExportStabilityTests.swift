import Foundation
import Testing
import TestSupport

/// The export's bytes are pinned: the hashes below were taken from the export
/// written before the performance work of issue 8 (a tree of JSON values per
/// transaction, rows read through GRDB), so any later fast path must write
/// exactly the same output.
@Suite struct ExportStabilityTests {
    private func sha256(_ path: String) throws -> String {
        let r = try CLI.run([path], executable: "/usr/bin/sha256sum")
        return String(r.stdout.prefix(64))
    }

    private func exportHash(_ store: String, in dir: TemporaryDirectory, format: [String] = []) throws -> String {
        let out = dir.file("export.out")
        try? FileManager.default.removeItem(atPath: out)
        let r = try CLI.run(["export", store, "--out", out] + format)
        #expect(r.status == 0, "\(r.stderr)")
        return try sha256(out)
    }

    @Test func generatedStoreExportIsByteForByteUnchanged() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file("Mid.sqlite")
        let write = try CLI.run(["--transactions", "20000", "--changes-per-transaction", "10", "--out", store], executable: "cdhist-fixtures")
        #expect(write.status == 0, "\(write.stderr)")
        #expect(try exportHash(store, in: dir) == "a9f420a5f50ce9724f39a064f741c7844b2770c5a61c7507cf1e60cc34c9a5ed")
    }

    @Test(.enabled(if: RealStores.available)) func replicatedPhotosExportIsByteForByteUnchanged() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file("Photos.sqlite")
        let write = try CLI.run(["--replicate", RealStores.photos, "--changes", "50000", "--out", store], executable: "cdhist-fixtures")
        #expect(write.stdout.contains("14964 transactions, 51504 changes"), "\(write.stdout)\(write.stderr)")
        #expect(try exportHash(store, in: dir) == "1df2989bbeb02336d51bd83940a6af3200e25423ae2c37ba1cb1773c169ce26d")
    }

    @Test func csvExportHasOneRowPerChange() throws {
        let store = Repository.fixtures + "/AppGroup/Tasks.sqlite"
        let r = try CLI.run(["export", store, "--format", "csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.lines
        #expect(lines.first == "transactionNumber,timestamp,cocoaTimestamp,author,contextName,bundleID,processID,changeID,changeType,entity,entityPK,changedObjectID,updatedProperties,tombstone")
        let info = try CLI.run(["info", store, "--format", "json"]).json()
        let transactionsWithoutChanges = try CLI.run(["transactions", store, "--format", "ndjson"]).lines
            .filter { $0.contains("\"changeCount\":0,") }.count
        #expect(lines.count - 1 == (info["changeCount"] as? Int ?? -1) + transactionsWithoutChanges)
        // A delete carries its tombstone as quoted JSON; an update its property names.
        #expect(lines.contains { $0.contains(",delete,") && $0.hasSuffix("}\"") && $0.contains("\"\"") })
        #expect(lines.contains { $0.contains(",update,Photo,") && $0.contains("filename") })
    }
}
