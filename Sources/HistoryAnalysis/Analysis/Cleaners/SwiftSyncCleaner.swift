/// SwiftSync (3lvis/SwiftSync, pull request #663, `SwiftSync/Sources/SwiftSync/ModelContext+Sync.swift`):
/// after each inbound sync, `trimSwiftSyncInboundHistory()` calls
/// `deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == inbound }))`
/// with `inbound` = `SwiftSync.inboundAuthor`.
///
/// No cut-off date: every transaction its own inbound author wrote goes, whatever its date;
/// every other author's history is kept. It keeps no position of the app's actors and asks
/// none of them; an actor whose position is before a deleted transaction never sees it.
enum SwiftSyncCleaner: CleanerRule {
    /// `SwiftSync.inboundAuthor`: the author of the contexts its pulls write with.
    static let inboundAuthor = "com.github.3lvis.SwiftSync.inbound"
    static let title = "SwiftSync"
    static let source = "3lvis/SwiftSync #663, ModelContext+Sync.swift (trimSwiftSyncInboundHistory)"
    static let narrowsToActors = false
    static let deletesOnlyBy: [String]? = [inboundAuthor]
    static let notes = ["it trims after each inbound sync, whether or not the app's actors have merged what it deletes"]

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        .everyDate("all history by \(inboundAuthor), at every date")
    }
}
