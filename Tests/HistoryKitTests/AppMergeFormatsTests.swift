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
        try DefaultsReader.read(
            bytes: PropertyList.encodeBinary(.dictionary(plist)), path: "defaults.plist", storeUUID: store,
            customPrefixes: prefixes)
    }

    private func actors(_ state: DefaultsMergeState) -> [String] { state.records.map(\.actor) }

    /// Apple's "Sharing Core Data objects between iCloud users" (CoreDataCloudKitShare,
    /// `Persistence/PersistenceController+History.swift`): `"HistoryToken" + storeUUID` in standard
    /// defaults, an archived token per store, the private and the shared store side by side.
    @Test func appleSharingSampleKeepsATokenPerStore() throws {
        let state = try read([
            "HistoryToken" + store: .data(MirroringFixture.token(30, store: store)),
            "HistoryToken" + other: .data(MirroringFixture.token(7, store: other)),
        ])
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
        let state = try read([
            "historyTokens": .dictionary([
                "Video.allVideos": .data(CloudKitFixtures.jsonToken(12, store: store)),
                "Subscription.subscriptionList": .data(CloudKitFixtures.jsonToken(30, store: store)),
            ])
        ])
        #expect(actors(state) == ["historyTokens/Subscription.subscriptionList", "historyTokens/Video.allVideos"])
        #expect(
            state.records.map(\.position) == [
                .token(HistoryToken(storeUUID: store, transactionNumber: 30)),
                .token(HistoryToken(storeUUID: store, transactionNumber: 12)),
            ])
    }

    /// StudApp (stoeffn/StudApp): in November 2017 (e4bfb09) `historyTokensMergedIntoApp`, an array of
    /// archives of tokens (which its encoder left empty); since, `lastHistoryTransactionTimestamp-<target>`, a Date.
    @Test func studAppKeptArraysOfArchivedTokensThenDates() throws {
        let empty: [UInt8] = PropertyList.encodeBinary(
            .dictionary([
                "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100000),
                "$objects": .array([.string("$null")]), "$top": .dictionary([:]),
            ]))
        let old = try read([
            "historyTokensMergedIntoApp": .array([.data(MirroringFixture.token(9, store: store)), .data(empty)])
        ])
        // Inside a container only what decodes as a token counts: the empty archive is passed over.
        #expect(actors(old) == ["historyTokensMergedIntoApp[0]"])
        #expect(old.records[0].position == .token(HistoryToken(storeUUID: store, transactionNumber: 9)))
        let now = try read([
            "lastHistoryTransactionTimestamp-app": .date(3 * day),
            "lastHistoryTransactionTimestamp-fileProvider": .date(2 * day),
        ])
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
        let state = try read([
            "expanded-" + other: .bool(true),
            "authTokens": .dictionary(["apns": .data([1, 2, 3, 4]), "login": .string("{\"access\":\"x\"}")]),
            "PersistentHistoryTrackingKit.lastToken.device-" + other: .date(4 * day),
        ])
        #expect(actors(state) == ["device-" + other])
        #expect(state.otherStoreKeys.isEmpty)
    }

    /// What looked like merge state and was not read is said (for `--verbose`).
    @Test func skippedKeysAreNamedWithTheReason() throws {
        let state = try read([
            "lastHistoryFetch": .string("yesterday"), "theme": .string("dark"),
            "HistoryToken" + other: .data(MirroringFixture.token(7, store: other)),
        ])
        #expect(state.records.isEmpty)
        let notes = state.notes.map(\.description)
        #expect(
            notes.contains("defaults.plist [lastHistoryFetch]: holds a string, not a date or a history token"),
            "\(notes)")
        #expect(
            notes.contains(
                "defaults.plist [HistoryToken\(other)]: the position of another store (\(other)), not of this one"))
        #expect(!notes.contains { $0.contains("theme") })
    }

    /// Archived tokens under an app's own key, each read as that key's actor: Trio
    /// (nightscout/Trio, `Model/Helper/UserDefaultsExtension.swift`: `lastHistoryToken`), CloudCore
    /// (deeje/CloudCore, `Push/CoreDataObserver.swift`: `lastPersistentHistoryTokenKey`), TweetNest
    /// (`TweetNestKit/TweetNestKitUserDefaults.swift`: `TWNKLastPersistentHistoryTokenData`), FNote
    /// (bdaralan/FNote, `CoreDataStack+HistoryTracker.swift`: `CoreDataStack.HistoryTracker`, beside its
    /// purge date `CoreDataStackHistoryTracker.kDeleteDate`, which is no position), Hexagon
    /// (kieranjlynch/Hexagon, `Data/PersistenceController.swift`: `PersistentHistoryTracker.lastToken`).
    @Test func appsKeepArchivedTokensUnderTheirOwnKeys() throws {
        let keys = [
            "lastHistoryToken", "lastPersistentHistoryTokenKey", "TWNKLastPersistentHistoryTokenData",
            "CoreDataStack.HistoryTracker",
            "PersistentHistoryTracker.lastToken",
        ]
        var plist = Dictionary(
            uniqueKeysWithValues: keys.enumerated().map {
                ($1, PlistValue.data(MirroringFixture.token(Int64(10 + $0), store: store)))
            })
        plist["CoreDataStackHistoryTracker.kDeleteDate"] = .date(6 * day)
        let state = try read(plist)
        #expect(actors(state) == keys.sorted())
        for (i, key) in keys.enumerated() {
            #expect(
                state.records.first { $0.actor == key }?.position
                    == .token(HistoryToken(storeUUID: store, transactionNumber: Int64(10 + i))), "\(key)")
        }
        #expect(state.ignoredKeyCount == 1)
        #expect(
            state.notes.map(\.description).contains {
                $0.contains("[CoreDataStackHistoryTracker.kDeleteDate]: a date under a key of no known format")
            })
    }

    /// SwiftLee's key as Proton Drive's macOS app writes it (ProtonDriveApps/ios-drive,
    /// `PDCore/.../UserDefaults+HistoryTransaction.swift`: `lastHistoryTransactionTimeStamp-main`,
    /// `-fileProviderExtension`) and StudApp's spelling as Injector writes it (tsbehlman/injector-native,
    /// `Shared/InjectorContext.swift`: `lastHistoryTransactionTimestamp-manager`, `-safariExtension`): Dates.
    @Test func protonDriveAndInjectorKeepDatesPerTarget() throws {
        let proton = try read([
            "lastHistoryTransactionTimeStamp-main": .date(3 * day),
            "lastHistoryTransactionTimeStamp-fileProviderExtension": .date(2 * day),
        ])
        #expect(
            actors(proton) == ["fileProviderExtension", "main"]
                && proton.records.allSatisfy { $0.keyFormat == .lastHistoryTransactionTimestamp })
        let injector = try read([
            "lastHistoryTransactionTimestamp-manager": .date(3 * day),
            "lastHistoryTransactionTimestamp-safariExtension": .date(day),
        ])
        #expect(actors(injector) == ["manager", "safariExtension"])
        #expect(injector.records.first { $0.actor == "safariExtension" }?.position == .date(day, wholeSeconds: false))
    }

    /// Apple's SwiftData sample "Adopting SwiftData for a Core Data app" (Trips,
    /// `Shared/DataModel+UnreadTrips.swift`): `historyToken`, a JSONEncoder-encoded token, as data.
    @Test func appleTripsKeepsAJSONToken() throws {
        let state = try read(["historyToken": .data(CloudKitFixtures.jsonToken(21, store: store))])
        #expect(actors(state) == ["historyToken"] && state.records.first?.keyFormat == .jsonToken)
        #expect(state.records.first?.position == .token(HistoryToken(storeUUID: store, transactionNumber: 21)))
    }

    /// Token files: Crush (ezoushen/Crush, `DataContainer/UiContextNotifier.swift`: `<store>.sqlite.tokendata`
    /// beside the store), Mimeo (`Store/PersistentHistoryTokenStore.swift`: `Application Support/Mimeo/history-token.data`),
    /// PersistenceSwift (`Sources/Persistence/HistoryToken.swift`: `Application Support/<name>/token.data`), Apple's
    /// CoreDataCloudKitDemo (`token.data`): an archived token each, found in a group container by what it holds.
    @Test func tokenFilesAreFoundByWhatTheyHold() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cdhist-formats-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let support = root.appendingPathComponent("Library/Application Support")
        for dir in ["Mimeo", "Notes"] {
            try FileManager.default.createDirectory(
                at: support.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        let files = [("Store.sqlite.tokendata", 5), ("Mimeo/history-token.data", 6), ("Notes/token.data", 7)]
        for (name, n) in files {
            try Data(MirroringFixture.token(Int64(n), store: store)).write(to: support.appendingPathComponent(name))
        }
        let container = try GroupContainer.discover(root.path)
        #expect(
            container.tokenFiles.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted() == [
                "Store.sqlite.tokendata", "history-token.data", "token.data",
            ])
        for (name, n) in files {
            let record = try TokenFileReader.read(path: support.appendingPathComponent(name).path, actor: name)
            #expect(record.position == .token(HistoryToken(storeUUID: store, transactionNumber: Int64(n))), "\(name)")
        }
    }
}
