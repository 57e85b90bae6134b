/// fatbobman's article "Using Persistent History Tracking in CoreData" (2021; fatbobman/FatBlog,
/// `Content/posts/persistentHistoryTracking.md`), its `PersistentHistoryCleaner`.
///
/// The rule of ``PHTK100Cleaner`` over every actor (`AppActor.allCases`: the article has no
/// batch authors, so one is an actor without a date); the delete narrowed to every actor; then
/// every actor's key set to nil.
enum FatbobmanArticleCleaner: CleanerRule {
    static let title = "fatbobman's article"
    static let source = "fatbobman/FatBlog, Content/posts/persistentHistoryTracking.md"
    static let narrowsToActors = true
    static let resetsKeys = true

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        PHTK100Cleaner.commonTimestamp(input.counted(excludingBatch: false), weekAgo: input.weekAgo)
    }
}
