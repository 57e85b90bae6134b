#ifndef CSQLITECONFIG_H
#define CSQLITECONFIG_H

/// sqlite3_db_config is variadic, which Swift cannot call: these wrap the settings
/// HistoryKit needs. `db` is a `sqlite3 *`.

/// Closing the last connection to a WAL store checkpoints it and removes its -wal.
/// After a write that failed, that would rewrite the main file and the -wal the
/// failed write left unchanged; this turns it off. Returns an SQLite result code.
int cdhist_sqlite_no_checkpoint_on_close(void *db);

/// Turns SQLite's memory statistics off (before SQLite initializes; later it is
/// refused and nothing changes): with them, every allocation of every connection
/// takes one process-wide lock, and connections reading on several cores wait
/// for each other. Returns an SQLite result code.
int cdhist_sqlite_no_memory_statistics(void);

#endif
