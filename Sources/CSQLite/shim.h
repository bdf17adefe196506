// Wrappers for what Swift cannot express: the SQLITE_STATIC / SQLITE_TRANSIENT destructor casts and variadic calls.
#ifndef TANDEM_CSQLITE_SHIM_H
#define TANDEM_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Binds text that SQLite copies at once (SQLITE_TRANSIENT), so the caller's buffer may go away (the OData
/// tests' stand-alone SQLite helper binds Swift strings this way).
static inline int tandem_sqlite3_bind_text_transient(sqlite3_stmt *s, int i, const char *text, int n) {
    return sqlite3_bind_text(s, i, text, n, SQLITE_TRANSIENT);
}
/// Binds text that SQLite reads in place (SQLITE_STATIC): the caller keeps it unchanged until the binding is
/// replaced or cleared.
static inline int tandem_sqlite3_bind_text_static(sqlite3_stmt *s, int i, const char *text, int n) {
    return sqlite3_bind_text(s, i, text, n, SQLITE_STATIC);
}
/// Binds a blob that SQLite reads in place (SQLITE_STATIC).
static inline int tandem_sqlite3_bind_blob_static(sqlite3_stmt *s, int i, const void *data, int n) {
    return sqlite3_bind_blob(s, i, data, n, SQLITE_STATIC);
}
/// sqlite3_db_config(db, op, int, int*) for the integer-flag options (defensive mode, DQS off, ...).
static inline int tandem_sqlite3_db_config_flag(sqlite3 *db, int op, int value, int *out) {
    return sqlite3_db_config(db, op, value, out);
}
/// sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on): whether SQLite counts its allocations (under a global
/// mutex taken on every malloc and free). Only valid before sqlite3_initialize.
static inline int tandem_sqlite3_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}
#endif
