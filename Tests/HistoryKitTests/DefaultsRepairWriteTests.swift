import Foundation
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// DefaultsRepair.write against another process writing the plist meanwhile.
@Suite struct DefaultsRepairWriteTests {
    @Test func aPlistRewrittenSinceItWasReadIsNotOverwritten() throws {
        let dir = try TemporaryDirectory()
        let plist = dir.file("defaults.plist")
        try FileManager.default.copyItem(atPath: Repository.fixtures + "/MergeState/tokens.plist", toPath: plist)
        let store = try HistoryStore.open(Repository.fixtures + "/MergeState/Tasks.sqlite")
        let plan = try DefaultsRepair.plan(
            path: plist, actor: "app", target: .latest, store: store, keyFormat: .persistentHistoryTrackingKit)
        // The app writes its defaults between the plan and the write (a key of its own added).
        var (dictionary, _) = try DefaultsReader.loadDictionary(plist)
        dictionary["lastLaunch"] = .string("now")
        let theirs = Data(PropertyList.encodeBinary(.dictionary(dictionary)))
        try theirs.write(to: URL(fileURLWithPath: plist))
        #expect(throws: RepairError.changedSinceRead(path: plist)) {
            try DefaultsRepair.write(plan, backupPath: dir.file("backup.plist"))
        }
        #expect(FileManager.default.contents(atPath: plist) == theirs)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["defaults.plist"])
        // Planned again, it writes, keeping the app's key.
        let again = try DefaultsRepair.plan(
            path: plist, actor: "app", target: .latest, store: store, keyFormat: .persistentHistoryTrackingKit)
        try DefaultsRepair.write(again, backupPath: dir.file("backup.plist"))
        #expect(FileManager.default.contents(atPath: dir.file("backup.plist")) == theirs)
        #expect(try DefaultsReader.loadDictionary(plist).0["lastLaunch"] == .string("now"))
    }

    /// Two repairs within one second each keep their own backup.
    @Test func repairsInTheSameSecondKeepSeparateBackups() throws {
        let dir = try TemporaryDirectory()
        let plist = dir.file("defaults.plist")
        try FileManager.default.copyItem(atPath: Repository.fixtures + "/MergeState/tokens.plist", toPath: plist)
        let original = FileManager.default.contents(atPath: plist)
        let store = try HistoryStore.open(Repository.fixtures + "/MergeState/Tasks.sqlite")
        let first = try DefaultsRepair.write(
            try DefaultsRepair.plan(
                path: plist, actor: "app", target: .latest, store: store,
                keyFormat: .persistentHistoryTrackingKit))
        let afterFirst = FileManager.default.contents(atPath: plist)
        let second = try DefaultsRepair.write(
            try DefaultsRepair.plan(
                path: plist, actor: "widget", target: .latest, store: store,
                keyFormat: .persistentHistoryTrackingKit))
        #expect(first != second)
        #expect(FileManager.default.contents(atPath: first) == original)
        #expect(FileManager.default.contents(atPath: second) == afterFirst)
        // The next name after a taken one is the same name with -2.
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let base = BackupName.beside(plist, date: date)
        try Data().write(to: URL(fileURLWithPath: base))
        #expect(BackupName.beside(plist, date: date) == base + "-2")
    }
}
