import HistoryKit

/// Defaults plists and token files for the merge-state fixtures, against the
/// App Group history (times from ``Scenarios/appGroupTime(_:)``).
public enum MergeStateFixtures {
    public static let containerUUID = "3C9A1E57-8B2D-4F60-9E14-A7D5C2B8F031"
    public static let groupID = "group.com.example.tasks"
    /// A store UUID that is not any fixture's.
    public static let foreignUUID = "DEADBEEF-0000-4000-8000-000000000000"

    static func date(_ n: Int) -> PlistValue { .date(Scenarios.appGroupTime(n)) }

    static func token(_ n: Int64, store: String = Scenarios.appGroupUUID) -> [UInt8] {
        HistoryTokenDecoder.encode(HistoryToken(storeUUID: store, transactionNumber: n))
    }

    /// Settings of other frameworks that share the plist: must be ignored.
    static let otherKeys: [String: PlistValue] = [
        "AppleLanguages": .array([.string("en")]),
        "onboardingCompleted": .bool(true),
        "lastSyncBadge": .integer(3),
        "themeName": .string("dark"),
    ]

    static func plist(_ entries: [String: PlistValue]) -> [UInt8] {
        PropertyList.encodeBinary(.dictionary(entries.merging(otherKeys) { a, _ in a }))
    }

    /// `MergeState/`: every key format, XML, tokens in defaults and files.
    public static func files() -> [String: [UInt8]] {
        let uuid = Scenarios.appGroupUUID
        return [
            // app merged everything (its date is the last transaction's); widget stopped at #20; share at #27.
            "phtk.plist": plist([
                "PersistentHistoryTrackingKit.lastToken.app": date(34),
                "PersistentHistoryTrackingKit.lastToken.widget": date(20),
                "PersistentHistoryTrackingKit.lastToken.shareExtension": date(27),
            ]),
            "tracker.plist": plist([
                "PersistentHistoryTracker.lastToken.app": date(34),
                "PersistentHistoryTracker.lastToken.widget": date(31),
            ]),
            "studapp.plist": plist([
                "lastHistoryTransactionTimestamp-app": date(34),
                "lastHistoryTransactionTimestamp-widget": date(25),
            ]),
            "swiftlee.plist": plist([
                "lastHistoryTransactionTimeStamp-app": date(34),
                "lastHistoryTransactionTimeStamp-widget": date(25),
            ]),
            "appwise.plist": plist([
                "persistent-history-tracking:\(uuid)-app": date(34),
                "persistent-history-tracking:\(uuid)-widget": date(30),
                "persistent-history-tracking:\(foreignUUID)-widget": date(2),
            ]),
            // The phtk.plist content after `plutil -convert xml1`: whole seconds only
            // (the scenario's dates, all in 2025, are dates an XML plist holds).
            "xml.plist": try! PropertyList.encodeXML(
                .dictionary(
                    [
                        "PersistentHistoryTrackingKit.lastToken.app": date(34),
                        "PersistentHistoryTrackingKit.lastToken.widget": date(20),
                        "PersistentHistoryTrackingKit.lastToken.shareExtension": date(27),
                    ].merging(otherKeys) { a, _ in a })),
            // A stale actor (a removed extension still in the plist) and a mismatched author name.
            "stale.plist": plist([
                "PersistentHistoryTrackingKit.lastToken.app": date(34),
                "PersistentHistoryTrackingKit.lastToken.widget": date(31),
                "PersistentHistoryTrackingKit.lastToken.intents": date(2),
                "PersistentHistoryTrackingKit.lastToken.share": date(27),
            ]),
            // Tokens in defaults: a good one, one of another store, one damaged.
            "tokens.plist": plist([
                "lastHistoryToken": .data(token(34)),
                "widgetHistoryToken": .data(token(12, store: foreignUUID)),
                "shareHistoryToken": .data(Array(token(27).prefix(40))),
            ]),
            "token.data": token(31),
            "corrupt-token.data": Array(token(31).dropLast(20)),
            "foreign-token.data": token(31, store: foreignUUID),
            "multi-store-token.data": HistoryTokenDecoder.encode(
                HistoryToken(transactionNumbers: [uuid: 29, foreignUUID: 4])),
            "date-archive.data": dateArchive(),
        ]
    }

    /// A keyed archive of an `NSDate`: an archive, but not of a token.
    static func dateArchive() -> [UInt8] {
        var b = KeyedArchiveBuilder()
        let root = b.add(["NS.time": .real(Scenarios.baseTime)], classChain: ["NSDate", "NSObject"])
        return BinaryPlistWriter.encode(b.archive(root: root))
    }

    /// `GroupContainer/<UUID>/`: the iOS layout.
    public static func containerFiles() -> [String: [UInt8]] {
        [
            "\(containerUUID)/.com.apple.mobile_container_manager.metadata.plist": PropertyList.encodeBinary(
                .dictionary([
                    "MCMMetadataIdentifier": .string(groupID),
                    "MCMMetadataContentClass": .integer(7),
                    "MCMMetadataUUID": .string(containerUUID),
                ])),
            "\(containerUUID)/Library/Preferences/\(groupID).plist": plist([
                "PersistentHistoryTrackingKit.lastToken.app": date(34),
                "PersistentHistoryTrackingKit.lastToken.widget": date(20),
            ]),
            "\(containerUUID)/Library/Application Support/token.data": token(31),
        ]
    }

    /// `Purged/`: positions behind the purge of transactions 1–20.
    public static func purgedFiles() -> [String: [UInt8]] {
        [
            "defaults.plist": plist([
                "PersistentHistoryTrackingKit.lastToken.app": date(10),
                "PersistentHistoryTrackingKit.lastToken.shareExtension": date(27),
            ]),
            "widget-token.data": token(15, store: Scenarios.purgedUUID),
        ]
    }
}
