#ifndef CWALVIEW_H
#define CWALVIEW_H

/// A read-only SQLite VFS, "cdhist-wal-view", that shows a store as it was after one commit of
/// its -wal without changing a byte beside it, and without copying the main file:
///
/// - the -wal is shown only up to the byte the main file's URI gives as `walsize` (the end of the
///   commit's last frame), so SQLite, rebuilding its WAL index, stops at that commit;
/// - the WAL index (-shm) is kept in the connection's memory: no -shm is opened or created;
/// - every write, truncation, sync and delete is refused, locks are taken on nothing, and an
///   exclusive lock is never granted (SQLite never checkpoints through it);
/// - each read transaction first checks that the -wal is still the log it was opened on (the
///   same header, at least as long): an app that checkpointed and reset it meanwhile makes the
///   read fail (SQLITE_IOERR_LOCK) rather than mix two logs;
/// - no file control reaches the files, and a rollback journal is never looked for.
///
/// Open a store with the URI `file:PATH?vfs=cdhist-wal-view&mode=ro&walsize=N`.

/// Registers the VFS (once; later calls do nothing). Returns an SQLite result code: an error
/// with an SQLite older than 3.31, which cannot lead from the -wal's name to the URI.
int cdhist_wal_view_register(void);

#endif
