#ifndef RESERVOIR_CSQLITE_SHIM_H
#define RESERVOIR_CSQLITE_SHIM_H
#include <sqlite3.h>
/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it. */
static inline sqlite3_destructor_type reservoir_sqlite_transient(void) { return SQLITE_TRANSIENT; }
/* Set before SQLite initializes: a connection's lookaside allocator holds 128 slots instead of
   1,200 and its page cache starts empty instead of with 20 pages allocated at once. SQLite
   threads both through free lists when a connection opens, writing to every page of them:
   a filter run, one short connection, paid a page fault for each. sqlite3_config is variadic,
   which Swift cannot call. */
static inline void reservoir_sqlite_configure_small_start(void) {
    sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 100, 128);
    sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
#endif
