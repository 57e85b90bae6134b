/// Authors the frameworks write history with, as families: Core Data's own
/// schema migrations, CloudKit mirroring, and other Apple frameworks. Tables
/// and summaries group them; what an app's own targets write stays apart.
public enum AuthorFamily: String, CaseIterable, Sendable {
    /// `com.apple.coredata.schemamigrator: lightweight migration from model with digest { … }`.
    case coreDataMigration = "coredata-migration"
    /// `NSCloudKitMirroringDelegate.import`, `.export`, `.setup`, `.reset` …
    case cloudKit = "cloudkit"
    /// Other `com.apple.` authors.
    case apple

    /// The family `author` belongs to; nil for an app's own authors (and no author).
    public static func of(_ author: String?) -> AuthorFamily? {
        guard let author else { return nil }
        if author.hasPrefix("com.apple.coredata.schemamigrator") { return .coreDataMigration }
        if author.hasPrefix(cloudKitPrefix) { return .cloudKit }
        if author.hasPrefix("com.apple.") { return .apple }
        return nil
    }

    /// What every author of CloudKit mirroring begins with.
    package static let cloudKitPrefix = "NSCloudKitMirroringDelegate"

    /// The family in words.
    public var title: String {
        switch self {
        case .coreDataMigration: return "Core Data migration"
        case .cloudKit: return "CloudKit mirroring"
        case .apple: return "Apple frameworks"
        }
    }

    /// The family in a word or two, for narrow labels: "migrations (3)".
    public var shortTitle: String {
        switch self {
        case .coreDataMigration: return "migrations"
        case .cloudKit: return "CloudKit"
        case .apple: return "Apple"
        }
    }
}
