import Dispatch
import HistoryAnalysis
import HistoryReading
import HistoryWrites

/// What a watch is asked: the store, what to report, where to start, and when to stop.
public struct WatchRequest: Sendable {
    public var path: String
    public var options: OpenOptions
    /// The names, entities, types and objects to report (its bounds, limit and order are not used).
    public var filter: HistoryQuery
    /// Start after this position instead of the newest transaction.
    public var since: HistoryQuery.Bound?
    /// The model to decode with instead of the store's cache.
    public var modelPath: String?
    /// Stop after this many transactions; nil: until a stop is requested.
    public var limit: Int?
    /// Seconds between looks at the store's files.
    public var interval: Double
    /// Seconds the store may keep failing to be read (a checkpoint, a lock) before the watch gives up.
    public var failureTolerance: Double

    public init(
        path: String, options: OpenOptions, filter: HistoryQuery, since: HistoryQuery.Bound?, modelPath: String?,
        limit: Int?, interval: Double, failureTolerance: Double = 5
    ) {
        self.path = path
        self.options = options
        self.filter = filter
        self.since = since
        self.modelPath = modelPath
        self.limit = limit
        self.interval = interval
        self.failureTolerance = failureTolerance
    }
}

/// `watch`'s use case: follows a store like `tail -f` (``StoreWatcher``), looking at its files
/// every interval until a stop is requested or the limit is reached, and tells each event in
/// order. A store that fails to be read for a moment (a checkpoint, a lock) is read at a later
/// look; one that keeps failing past the tolerance, or is deleted or replaced, ends the watch
/// with its error.
public enum HistoryWatch {
    /// Watches `request.path`. `started` is told of the watcher once it is open (its notices, its
    /// model, where it starts), before any event; `labeler` makes the labels of a store as a look
    /// opened it (nil: none), which `event` is given with each event of that look, and which is
    /// let go of after the look: a watch holds nothing of the store between looks.
    public static func run(
        _ request: WatchRequest, stops: StopRequests,
        labeler: (HistoryStore, ModelResolution) throws -> ObjectLabeler?,
        started: (StoreWatcher) throws -> Void,
        event: (StoreWatcher.Event, ObjectLabeler?) throws -> Void
    ) throws {
        let modelPath = request.modelPath
        let watcher = try StoreWatcher(
            path: request.path, options: request.options, filter: request.filter, since: request.since
        ) { try $0.resolveModel(userModelPath: modelPath) }
        try started(watcher)
        // The caller's stop requests, through the interruption writes listen to; a request also
        // ends the wait between looks at once.
        let wake = DispatchSemaphore(value: 0)
        let stop = WriteInterruption(stops: stops) { wake.signal() }
        defer { stop.cancel() }
        var isStopped: Bool { stop.received != nil }
        var told = 0
        var failingSince: Double?
        while !isStopped {
            do {
                var labels: (store: HistoryStore, labeler: ObjectLabeler?)?
                let goOn = try watcher.poll { found in
                    if case .transaction = found, let store = watcher.store, labels?.store !== store {
                        labels = (store, try labeler(store, watcher.model))
                    }
                    try event(found, labels?.labeler)
                    if case .transaction = found {
                        told += 1
                        if let limit = request.limit, told >= limit { return false }
                    }
                    return !isStopped
                }
                failingSince = nil
                if !goOn { break }
            } catch let error as StoreError {
                // A store caught mid-checkpoint or locked for a moment reads at the next look.
                let now = DispatchTime.now().uptimeNanoseconds
                let since = failingSince ?? Double(now)
                failingSince = since
                if (Double(now) - since) / 1e9 > request.failureTolerance { throw error }
            }
            _ = wake.wait(timeout: .now() + max(0, min(request.interval, 3600)))
            if isStopped { break }
        }
    }
}
