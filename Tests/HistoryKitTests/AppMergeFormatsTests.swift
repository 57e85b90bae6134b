import Foundation
import HistoryFixtures
import Testing
@testable import HistoryKit

/// Merge positions as real apps keep them, each built from the app's own key and encoding
/// (the repository and file named in each test), read by ``DefaultsReader``.
@Suite struct AppMergeFormatsTests {
    let store = Scenarios.appGroupUUID
    let other = MergeStateFixtures.foreignUUID
    let day = 86400.0

    private func read(_ plist: [String: PlistValue], prefixes: [String] = []) throws -> DefaultsMergeState {
        try DefaultsReader.read(bytes: PropertyList.encodeBinary(.dictionary(plist)), path: "defaults.plist", storeUUID: store, customPrefixes: prefixes)
    }

    private func actors(_ state: DefaultsMergeState) -> [String] { state.records.map(\.actor) }

    /// Apple's "Sharing Core Data objects between iCloud users" (CoreDataCloudKitShare,
    /// `Persistence/PersistenceController+History.swift`): `"HistoryToken" + storeUUID` in standard
    /// defaults, an archived token per store, the private and the shared store side by side.
    @Test func appleSharingSampleKeepsATokenPerStore() throws {
        let state = try read(["HistoryToken" + store: .data(MirroringFixture.token(30, store: store)),
                              "HistoryToken" + other: .data(MirroringFixture.token(7, store: other))])
        #expect(actors(state) == ["HistoryToken" + store])
        #expect(state.records.first?.position == .token(HistoryToken(storeUUID: store, transactionNumber: 30)))
        // The sibling store's key is not a foreign token of this store.
        #expect(state.otherStoreKeys == ["HistoryToken" + other])
    }

    /// HalloApp (HalloAppInc/halloapp-ios-pub, `CoreCommon/Source/PersistentHistoryTracker.swift`):
    /// `lastHistoryTransactionTimeStamp-<dataStore>-<target>`, a Date, three stores in one App Group suite.
    @Test func halloAppKeepsThreeStoresInOneSuite() throws {
        var plist: [String: PlistValue] = [:]
        for (i, dataStore) in ["mainDataStore", "keyStore", "notificationStore"].enumerated() {
            for target in ["mainApp", "shareExtension", "notificationExtension"] {
                plist["lastHistoryTransactionTimeStamp-\(dataStore)-\(target)"] = .date(Double(10 + i) * day)
            }
        }
        // Without a prefix every key is this store's (nothing says otherwise).
        #expect(try read(plist).records.count == 9)
        // The prefix that qualifies SwiftLee's format names this store's keys; the other stores' are set apart.
        let main = try read(plist, prefixes: ["lastHistoryTransactionTimeStamp-mainDataStore-"])
        #expect(actors(main) == ["mainApp", "notificationExtension", "shareExtension"])
        #expect(main.records.allSatisfy { $0.position == .date(10 * day, wholeSeconds: false) })
        #expect(main.otherStoreKeys.count == 6 && main.otherStoreKeys.allSatisfy { !$0.contains("mainDataStore") })
    }

    /// Unwatched (fer0n/Unwatched, `Unwatched/ViewModel/TransactionVM.swift`): `historyTokens`, a
    /// dictionary of `"<Model>.<listId>"` → JSONEncoder-encoded `DefaultHistoryToken`, in standard defaults.
    @Test func unwatchedKeepsJSONTokensInADictionary() throws {
        let state = try read(["historyTokens": .dictionary(["Video.allVideos": .data(CloudKitFixtures.jsonToken(12, store: store)),
                                                            "Subscription.subscriptionList": .data(CloudKitFixtures.jsonToken(30, store: store))])])
        #expect(actors(state) == ["historyTokens/Subscription.subscriptionList", "historyTokens/Video.allVideos"])
        #expect(state.records.map(\.position) == [.token(HistoryToken(storeUUID: store, transactionNumber: 30)),
                                                  .token(HistoryToken(storeUUID: store, transactionNumber: 12))])
    }

    /// StudApp (stoeffn/StudApp): in November 2017 (e4bfb09) `historyTokensMergedIntoApp`, an array of
    /// archives of tokens (which its encoder left empty); since, `lastHistoryTransactionTimestamp-<target>`, a Date.
    @Test func studAppKeptArraysOfArchivedTokensThenDates() throws {
        let empty: [UInt8] = PropertyList.encodeBinary(.dictionary(["$archiver": .string("NSKeyedArchiver"), "$version": .integer(100000),
                                                                    "$objects": .array([.string("$null")]), "$top": .dictionary([:])]))
        let old = try read(["historyTokensMergedIntoApp": .array([.data(MirroringFixture.token(9, store: store)), .data(empty)])])
        // Inside a container only what decodes as a token counts: the empty archive is passed over.
        #expect(actors(old) == ["historyTokensMergedIntoApp[0]"])
        #expect(old.records[0].position == .token(HistoryToken(storeUUID: store, transactionNumber: 9)))
        let now = try read(["lastHistoryTransactionTimestamp-app": .date(3 * day), "lastHistoryTransactionTimestamp-fileProvider": .date(2 * day)])
        #expect(actors(now) == ["app", "fileProvider"])
    }

    /// SwiftDataChangeMonitor (fatbobman/BlogCodes, `SwiftDataChangeMonitor/Monitor.swift`):
    /// `lastHistoryTransactionTimestamp`, a Date, with no actor part, in standard defaults.
    @Test func swiftDataChangeMonitorKeepsOneDate() throws {
        let state = try read(["lastHistoryTransactionTimestamp": .date(5 * day)])
        #expect(actors(state) == ["lastHistoryTransactionTimestamp"])
        #expect(state.records.first?.keyFormat == .lastHistoryTransactionTimestamp)
    }

    /// Values that are no merge state stay out: a key naming some UUID with no token in it, and
    /// device or login tokens kept in a dictionary; a position whose actor name holds a UUID is read.
    @Test func otherDataIsNoMergeState() throws {
        let state = try read(["expanded-" + other: .bool(true),
                              "authTokens": .dictionary(["apns": .data([1, 2, 3, 4]), "login": .string("{\"access\":\"x\"}")]),
                              "PersistentHistoryTrackingKit.lastToken.device-" + other: .date(4 * day)])
        #expect(actors(state) == ["device-" + other])
        #expect(state.otherStoreKeys.isEmpty)
    }

    /// What looked like merge state and was not read is said (for `--verbose`).
    @Test func skippedKeysAreNamedWithTheReason() throws {
        let state = try read(["lastHistoryFetch": .string("yesterday"), "theme": .string("dark"),
                              "HistoryToken" + other: .data(MirroringFixture.token(7, store: other))])
        #expect(state.records.isEmpty)
        #expect(state.notes.contains("defaults.plist [lastHistoryFetch]: holds a string, not a date or a history token"), "\(state.notes)")
        #expect(state.notes.contains("defaults.plist [HistoryToken\(other)]: the position of another store (\(other)), not of this one"))
        #expect(!state.notes.contains { $0.contains("theme") })
    }
}
