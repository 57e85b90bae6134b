/// Something the user can give or run to act on a problem, named by what it does.
/// HistoryKit's messages point at controls; a front end names them (a
/// command-line tool by its flags and commands).
public enum Control: String, CaseIterable, Sendable, CustomStringConvertible {
    /// A model to decode with, instead of the store's cache.
    case model
    /// The model the app's next version ships.
    case nextModel
    /// Purge even when the purge breaks actors.
    case allowExpire
    /// Move a merge position past transactions the actor has not merged.
    case allowSkip
    /// Purge without backing the store up first.
    case noBackup
    /// The store a repair of merge positions refers to.
    case store
    /// Move a merge position to a transaction number.
    case moveToTransaction
    /// Move a merge position before the oldest surviving transaction.
    case moveToOldest
    /// Move a merge position to the newest transaction.
    case moveToLatest
    /// Remove an actor's merge position.
    case removePosition
    /// The defaults key format to write an actor that has no key yet.
    case keyFormat
    /// Narrow changes to an entity.
    case entityFilter
    /// Narrow changes to a change type.
    case changeTypeFilter
    /// Narrow changes to one object.
    case objectFilter
    /// An App Group folder holding the store, its defaults and tokens.
    case groupContainer
    /// A shared defaults plist holding merge positions.
    case defaults
    /// A history token file.
    case token
    /// Declare an author that merges.
    case declareActor
    /// Another defaults key prefix, followed by the actor's name.
    case keyPrefix
    /// Where watching history starts.
    case startAfter
    /// Purge, then give the freed pages back to the file system.
    case purgeAndVacuum
    /// Remove an actor's merge position from the shared defaults.
    case removePositionFromDefaults
    /// Show what each actor merged and what each cleaner would delete.
    case showActors
    /// Purge as a named cleaner would.
    case purgeByStrategy
    /// Show a store's summary and its health.
    case showStoreInfo
    /// Show CloudKit mirroring's state and its recent events.
    case showCloudKit
    /// Decode the tokens a file holds and check them against a store.
    case showTokens
    /// Export history, with the warnings of values that could not be read as written.
    case exportHistory
    /// List the saves a store's -wal holds.
    case listSaves
    /// Put back every file a provocation changed.
    case provokeUndo
    /// Put back every file a provocation changed, losing what was written since.
    case provokeUndoForce
    /// The actor a provocation acts on.
    case provokeActor

    /// `‹name›`: a control shown where a message was not worded by a front end.
    public var description: String { "‹\(rawValue)›" }
}
