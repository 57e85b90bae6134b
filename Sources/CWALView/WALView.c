#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <fcntl.h>
#include <unistd.h>
#include "CWALView.h"

/* The VFS this one wraps (the platform's default), found when registering. */
static sqlite3_vfs *base_vfs = 0;

/* One open file: the wrapped file follows this struct in the same allocation. */
typedef struct ViewFile {
    sqlite3_file base;
    sqlite3_file *real;
    /* For the -wal: the bytes shown (< 0: the whole file). */
    sqlite3_int64 limit;
    /* For the main file: the WAL index, in this connection's memory. */
    void **regions;
    int region_count;
    /* For the main file: its -wal's path, and the header and size it had when first read, so a
       read that finds the log reset or cut (an app checkpointed meanwhile) fails instead of
       mixing two logs. */
    char *wal_path;
    unsigned char wal_header[32];
    sqlite3_int64 wal_limit;
    int wal_known;
} ViewFile;

/* The -wal's first 32 bytes and its size; 0 when it cannot be read. */
static int read_wal_header(const char *path, unsigned char header[32], sqlite3_int64 *size) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t got = pread(fd, header, 32, 0);
    off_t end = lseek(fd, 0, SEEK_END);
    close(fd);
    if (got != 32 || end < 0) return 0;
    *size = (sqlite3_int64)end;
    return 1;
}

/* Whether the -wal is still the log the view was opened on: the same header, and at least as
   long as the commit shown. */
static int wal_unchanged(ViewFile *v) {
    if (!v->wal_path) return 1;
    unsigned char header[32];
    sqlite3_int64 size = 0;
    if (!read_wal_header(v->wal_path, header, &size)) return 0;
    if (!v->wal_known) {
        memcpy(v->wal_header, header, 32);
        v->wal_known = 1;
    }
    return memcmp(header, v->wal_header, 32) == 0 && size >= v->wal_limit;
}

static int view_close(sqlite3_file *f) {
    ViewFile *v = (ViewFile *)f;
    for (int i = 0; i < v->region_count; i++) free(v->regions[i]);
    free(v->regions);
    v->regions = 0;
    v->region_count = 0;
    free(v->wal_path);
    v->wal_path = 0;
    return v->real->pMethods ? v->real->pMethods->xClose(v->real) : SQLITE_OK;
}

static int view_read(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    ViewFile *v = (ViewFile *)f;
    if (v->limit >= 0 && offset + amount > v->limit) {
        /* Past the commit shown: what lies there does not exist for this view. */
        int shown = offset >= v->limit ? 0 : (int)(v->limit - offset);
        memset((char *)buffer + shown, 0, (size_t)(amount - shown));
        if (shown > 0) {
            int rc = v->real->pMethods->xRead(v->real, buffer, shown, offset);
            if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) return rc;
        }
        return SQLITE_IOERR_SHORT_READ;
    }
    return v->real->pMethods->xRead(v->real, buffer, amount, offset);
}

static int view_write(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    (void)f; (void)buffer; (void)amount; (void)offset;
    return SQLITE_READONLY;
}

static int view_truncate(sqlite3_file *f, sqlite3_int64 size) {
    (void)f; (void)size;
    return SQLITE_READONLY;
}

static int view_sync(sqlite3_file *f, int flags) {
    (void)f; (void)flags;
    return SQLITE_OK;
}

static int view_file_size(sqlite3_file *f, sqlite3_int64 *size) {
    ViewFile *v = (ViewFile *)f;
    int rc = v->real->pMethods->xFileSize(v->real, size);
    if (rc == SQLITE_OK && v->limit >= 0 && *size > v->limit) *size = v->limit;
    return rc;
}

/* Locks are taken on nothing: the view reads files it never writes. An exclusive lock, which
   SQLite takes to checkpoint or to remove the -wal, is never granted. Each read transaction
   (a shared lock) first checks that the -wal is still the log the view was opened on. */
static int view_lock(sqlite3_file *f, int level) {
    ViewFile *v = (ViewFile *)f;
    if (level >= SQLITE_LOCK_RESERVED) return SQLITE_BUSY;
    if (level == SQLITE_LOCK_SHARED && !wal_unchanged(v)) return SQLITE_IOERR_LOCK;
    return SQLITE_OK;
}

static int view_unlock(sqlite3_file *f, int level) {
    (void)f; (void)level;
    return SQLITE_OK;
}

static int view_check_reserved(sqlite3_file *f, int *reserved) {
    (void)f;
    *reserved = 0;
    return SQLITE_OK;
}

/* No file control reaches the real file (some act on the file by its path): SQLite treats each
   as not supported. */
static int view_file_control(sqlite3_file *f, int op, void *arg) {
    (void)f; (void)op; (void)arg;
    return SQLITE_NOTFOUND;
}

static int view_sector_size(sqlite3_file *f) {
    ViewFile *v = (ViewFile *)f;
    return v->real->pMethods->xSectorSize(v->real);
}

static int view_device_characteristics(sqlite3_file *f) {
    ViewFile *v = (ViewFile *)f;
    return v->real->pMethods->xDeviceCharacteristics(v->real);
}

/* The WAL index in memory: SQLite finds it empty and rebuilds it from the -wal it is shown. */
static int view_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out) {
    ViewFile *v = (ViewFile *)f;
    (void)extend;
    if (region >= v->region_count) {
        void **grown = realloc(v->regions, sizeof(void *) * (size_t)(region + 1));
        if (!grown) return SQLITE_NOMEM;
        for (int i = v->region_count; i <= region; i++) grown[i] = 0;
        v->regions = grown;
        v->region_count = region + 1;
    }
    if (!v->regions[region]) {
        v->regions[region] = calloc(1, (size_t)size);
        if (!v->regions[region]) return SQLITE_NOMEM;
    }
    *out = v->regions[region];
    return SQLITE_OK;
}

static int view_shm_lock(sqlite3_file *f, int offset, int n, int flags) {
    (void)f; (void)offset; (void)n; (void)flags;
    return SQLITE_OK;
}

static void view_shm_barrier(sqlite3_file *f) {
    (void)f;
    __sync_synchronize();
}

static int view_shm_unmap(sqlite3_file *f, int delete_flag) {
    ViewFile *v = (ViewFile *)f;
    (void)delete_flag;
    for (int i = 0; i < v->region_count; i++) free(v->regions[i]);
    free(v->regions);
    v->regions = 0;
    v->region_count = 0;
    return SQLITE_OK;
}

static const sqlite3_io_methods view_methods = {
    2, view_close, view_read, view_write, view_truncate, view_sync, view_file_size,
    view_lock, view_unlock, view_check_reserved, view_file_control, view_sector_size,
    view_device_characteristics, view_shm_map, view_shm_lock, view_shm_barrier, view_shm_unmap,
    0, 0,
};

static int view_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags) {
    ViewFile *v = (ViewFile *)f;
    (void)vfs;
    memset(v, 0, sizeof(ViewFile));
    v->real = (sqlite3_file *)(v + 1);
    v->limit = -1;
    /* Only the store and its -wal are read; nothing is created. */
    if (!(flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL))) return SQLITE_CANTOPEN;
    int real_flags = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_DELETEONCLOSE | SQLITE_OPEN_EXCLUSIVE))
        | SQLITE_OPEN_READONLY;
    int rc = base_vfs->xOpen(base_vfs, name, v->real, real_flags, out_flags);
    if (rc != SQLITE_OK) {
        v->real->pMethods = 0;
        return rc;
    }
    if (out_flags) *out_flags = (*out_flags & ~SQLITE_OPEN_READWRITE) | SQLITE_OPEN_READONLY;
    /* The main file's URI names how much of the -wal to show (the WAL's name leads to it). */
    if (flags & SQLITE_OPEN_WAL) v->limit = sqlite3_uri_int64(name, "walsize", -1);
    if (flags & SQLITE_OPEN_MAIN_DB) {
        size_t length = strlen(name);
        v->wal_path = malloc(length + 5);
        if (v->wal_path) {
            memcpy(v->wal_path, name, length);
            memcpy(v->wal_path + length, "-wal", 5);
        }
        v->wal_limit = sqlite3_uri_int64(name, "walsize", 0);
        /* The header the log had when its commits were counted, as 64 hex digits. */
        const char *hex = sqlite3_uri_parameter(name, "walheader");
        if (hex && strlen(hex) == 64) {
            int ok = 1;
            for (int i = 0; i < 32 && ok; i++) {
                unsigned int byte = 0;
                for (int j = 0; j < 2; j++) {
                    char c = hex[2 * i + j];
                    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
                    if (digit < 0) ok = 0; else byte = byte * 16 + (unsigned int)digit;
                }
                v->wal_header[i] = (unsigned char)byte;
            }
            v->wal_known = ok;
        }
    }
    v->base.pMethods = &view_methods;
    return SQLITE_OK;
}

static int view_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs; (void)name; (void)sync_dir;
    return SQLITE_READONLY;
}

static int view_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    /* Nothing is written: a file is never writable; a -shm is never looked for, nor a rollback
       journal (a store in WAL mode has none to read, and a leftover one would be taken as hot). */
    size_t length = strlen(name);
    if ((length > 4 && strcmp(name + length - 4, "-shm") == 0) || (length > 8 && strcmp(name + length - 8, "-journal") == 0)) {
        *result = 0;
        return SQLITE_OK;
    }
    int rc = base_vfs->xAccess(base_vfs, name, flags == SQLITE_ACCESS_READWRITE ? SQLITE_ACCESS_EXISTS : flags, result);
    if (flags == SQLITE_ACCESS_READWRITE) *result = 0;
    return rc;
}

static int view_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return base_vfs->xFullPathname(base_vfs, name, size, out);
}

static void *view_dl_open(sqlite3_vfs *vfs, const char *name) { (void)vfs; return base_vfs->xDlOpen(base_vfs, name); }
static void view_dl_error(sqlite3_vfs *vfs, int n, char *out) { (void)vfs; base_vfs->xDlError(base_vfs, n, out); }
static void (*view_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return base_vfs->xDlSym(base_vfs, handle, symbol);
}
static void view_dl_close(sqlite3_vfs *vfs, void *handle) { (void)vfs; base_vfs->xDlClose(base_vfs, handle); }
static int view_randomness(sqlite3_vfs *vfs, int n, char *out) { (void)vfs; return base_vfs->xRandomness(base_vfs, n, out); }
static int view_sleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return base_vfs->xSleep(base_vfs, microseconds); }
static int view_current_time(sqlite3_vfs *vfs, double *now) { (void)vfs; return base_vfs->xCurrentTime(base_vfs, now); }
static int view_get_last_error(sqlite3_vfs *vfs, int n, char *out) {
    (void)vfs;
    return base_vfs->xGetLastError ? base_vfs->xGetLastError(base_vfs, n, out) : 0;
}
static int view_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return base_vfs->xCurrentTimeInt64(base_vfs, now);
}

static sqlite3_vfs view_vfs = {
    2, 0, 0, 0, "cdhist-wal-view", 0,
    view_open, view_delete, view_access, view_full_pathname,
    view_dl_open, view_dl_error, view_dl_sym, view_dl_close,
    view_randomness, view_sleep, view_current_time, view_get_last_error, view_current_time_int64,
    0, 0, 0,
};

static pthread_once_t registered = PTHREAD_ONCE_INIT;
static int register_result = SQLITE_OK;

static void register_once(void) {
    /* The -wal's name leads to the main file's URI parameters from SQLite 3.31 on. */
    if (sqlite3_libversion_number() < 3031000) {
        register_result = SQLITE_ERROR;
        return;
    }
    base_vfs = sqlite3_vfs_find(0);
    if (!base_vfs) {
        register_result = SQLITE_ERROR;
        return;
    }
    view_vfs.szOsFile = (int)sizeof(ViewFile) + base_vfs->szOsFile;
    view_vfs.mxPathname = base_vfs->mxPathname;
    register_result = sqlite3_vfs_register(&view_vfs, 0);
}

int cdhist_wal_view_register(void) {
    pthread_once(&registered, register_once);
    return register_result;
}
