/// How a store's files were opened: always without writing to them.
public enum StoreAccess: Equatable, Sendable {
    /// WAL mode with a `-wal`: SQLite's `mode=ro&readonly_shm=1`. The WAL's commits are read and
    /// never checkpointed; `-shm` is mapped read-only.
    case readOnlyWithWAL
    /// No usable `-wal` (none, or nothing whole in it): `immutable=1`, the main file alone.
    case immutable
    /// A rollback-journal store: `mode=ro`.
    case readOnly
    /// Copied to a private folder and read there (`query_only`), because SQLite could not
    /// read the files where they lie without writing beside them.
    case privateCopy(reason: String)
    /// Inside a backup or a zip: its files copied to a private folder, or read where they lie.
    case packed(copied: Bool)
    /// As it was after save `save` of the `saves` its `-wal` holds: the main file and the frames
    /// through that commit, through a read-only view (the WAL index in memory, nothing written).
    case atSave(Int, of: Int)

    /// A sentence for the examination record.
    public var description: String {
        switch self {
        case .readOnlyWithWAL:
            return
                """
                read-only (SQLite mode=ro, readonly_shm=1): the -wal's commits read, never checkpointed; -shm \
                mapped read-only
                """
        case .immutable:
            return "read-only (SQLite immutable=1): the main file alone, no -wal or -shm created"
        case .readOnly:
            return "read-only (SQLite mode=ro), rollback journal"
        case .privateCopy(let reason):
            return "copied to a private folder and read there with query_only (\(reason)); the originals only read"
        case .atSave(let n, let count):
            return
                """
                as after save \(n) of the \(count) its -wal holds: the main file and the -wal through that \
                commit, read through a read-only view (the WAL index kept in memory; no -shm opened, nothing \
                written or checkpointed)
                """
        case .packed(let copied):
            return copied
                ? """
                copied out of the backup or archive to a private folder and read there with query_only; the \
                backup or archive only read
                """
                : "read-only where it lies in the backup (it has no -wal)"
        }
    }
}
