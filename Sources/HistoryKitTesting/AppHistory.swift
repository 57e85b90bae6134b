import Foundation
import HistoryKit

/// An app's Core Data store under test and where the app keeps its merge state: the shared
/// defaults plists, token files (`actor=path`) or the App Group folder, as `cdhist` takes them.
/// Its expectations (`expectHealthy`, `provoking`, `mark` and `writtenSince`) run the library's
/// use cases, as the `cdhist` commands do, in the test's process.
public struct AppHistory: Sendable {
    /// The store file (its `-wal` and `-shm` beside it).
    public var store: String
    /// Shared defaults plists holding actors' merge positions.
    public var defaults: [String]
    /// Token files, each `actor=path`.
    public var tokens: [String]
    /// The App Group folder: its defaults plists and token files are read too.
    public var groupContainer: String?
    /// A model (`.xcdatamodeld`, `.momd`, `.mom`) to decode with instead of the store's cache.
    public var modelPath: String?

    public init(
        store: String, defaults: [String] = [], tokens: [String] = [], groupContainer: String? = nil,
        modelPath: String? = nil
    ) {
        self.store = store
        self.defaults = defaults
        self.tokens = tokens
        self.groupContainer = groupContainer
        self.modelPath = modelPath
    }

    /// The merge state's sources, evaluated at `now` (nil: the present, with lags measured as
    /// `cdhist` measures them without `--now`).
    func mergeState(now: Date?) -> MergeStateRequest {
        MergeStateRequest(
            defaults: defaults, tokens: tokens, groupContainer: groupContainer,
            now: (now ?? Date()).timeIntervalSinceReferenceDate, nowIsGiven: now != nil, modelPath: modelPath)
    }
}
