/* store-sqlite.c: the embedded SQLite backend. One table of objects and a one-row table with the
 * resourceVersion counter; each write bumps the counter, stamps the object and is on disk before
 * it returns; writes that arrive together share one transaction (group commit, below), and
 * transactions committed while a flush is under way share the next one (durability, below).
 * Writes go through one connection under a mutex; reads use a small pool of other connections,
 * which WAL lets run beside the writer. Watch history is not kept here: durable writes go to the
 * watch cache. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "store/store-internal.h"

#define SCHEMA_VERSION 1
#define READERS        4
/* Each connection's page cache (SQLite's default is 2 MB each): a write or a point read needs
 * the B-tree's path, a list streams the table once, and the kernel's page cache holds the file
 * behind them. The watch cache answers most reads before they get here. */
#define WRITER_CACHE_SIZE "PRAGMA cache_size = -512" /* KiB */
#define READER_CACHE_SIZE "PRAGMA cache_size = -128" /* KiB */

static const char schema_sql[] = "CREATE TABLE IF NOT EXISTS objects ("
                                 " id INTEGER PRIMARY KEY,"
                                 " resource TEXT NOT NULL,"
                                 " namespace TEXT NOT NULL,"
                                 " name TEXT NOT NULL,"
                                 " rv INTEGER NOT NULL,"
                                 " json TEXT NOT NULL,"
                                 " UNIQUE (resource, namespace, name));"
                                 "CREATE TABLE IF NOT EXISTS revision ("
                                 " id INTEGER PRIMARY KEY CHECK (id = 1),"
                                 " rv INTEGER NOT NULL);"
                                 "INSERT OR IGNORE INTO revision (id, rv) VALUES (1, 0);";

#define SQL_GET      "SELECT rv, json FROM objects WHERE resource = ?1 AND namespace = ?2 AND name = ?3"
#define SQL_LIST_ALL "SELECT json FROM objects WHERE resource = ?1 ORDER BY namespace, name"
#define SQL_LIST_NS  "SELECT json FROM objects WHERE resource = ?1 AND namespace = ?2 ORDER BY name"
#define SQL_RV       "SELECT rv FROM revision WHERE id = 1"

struct reader {
        sqlite3 *db;
        sqlite3_stmt *get, *list_all, *list_ns, *rv, *begin, *end;
};

#define BATCH_MAX 64

/* A writer whose answer stands or falls with the open batch, on its stack while it waits. */
struct batch_member {
        struct batch_member *next;
        bool done;
        int result;   /* the batch's: 0, or -errno with message */
        uint64_t seq; /* the batch's commit, which the answer waits to be durable */
        char message[256];
};

/* A write of the open batch, published once the batch is committed and durable. resource and
 * ns are the writer's own, valid while it waits (it returns after the publication). seq: its
 * batch's commit (0 while the batch is open). */
struct batch_event {
        enum store_event_type type;
        const char *resource, *ns;
        uint64_t rv;
        json_t *obj;
        char *json;
        uint64_t seq;
};

struct store_sqlite {
        struct store_backend base;
        char *path;
        int lock_fd; /* flock()ed "<path>-lock": one owner at a time */

        /* Writer: everything below under wlock. */
        pthread_mutex_t wlock;
        sqlite3 *wdb;
        sqlite3_stmt *begin, *commit, *rollback, *get, *insert, *update, *delete, *set_rv;
        uint64_t committed_rv; /* the counter as committed */
        /* commits so far (under wlock; read atomically without it, by the flush) */
        uint64_t committed_seq;

        /* Group commit (K8S: etcd's backend batches its writes into one bolt transaction and
         * fsync; here the batch is the writers that queued while one wrote): a writer that
         * finds others waiting for wlock leaves its transaction open for them, and the last of
         * them (or the BATCH_MAX-th write) commits all in one transaction; the others wait for
         * that, then all for its flush (durability, below), before they return. A lone writer
         * commits at once. */
        atomic_uint queued;        /* writers waiting for wlock (writer_lock) */
        pthread_cond_t batch_cond; /* with wlock: a batch ended */
        bool txn_open;             /* the batch's transaction */
        uint64_t pending_rv;       /* the counter with the batch's writes */
        struct batch_member *members;
        struct batch_event events[BATCH_MAX];
        size_t n_events;

        /* Durability (K8S: etcd's backend commits a batch to bolt and syncs it while the next
         * batch fills; PostgreSQL's XLogFlush): the writer connection commits at
         * synchronous=NORMAL, so COMMIT puts the transaction in the WAL without flushing it,
         * and wlock is free for the next writer at once. Then each writer waits for its
         * commit to be durable: the first to wait flushes the WAL (fdatasync of wal_fd, which
         * makes every commit before it durable) while the others wait for that flush, or the
         * next one when theirs came after it began. The flusher publishes the durable
         * commits' events in order before anyone returns: no watcher, and no writer's
         * caller, sees a write that a power loss could take. Everything below under slock. */
        int wal_fd;
        pthread_mutex_t slock;
        pthread_cond_t scond; /* a flush ended */
        bool flushing;
        uint64_t durable_seq;            /* commits flushed and published */
        uint64_t rv;                     /* the counter as durable; read atomically without slock */
        struct batch_event *unpublished; /* committed, not yet durable, in commit order */
        size_t n_unpublished, cap_unpublished;

        /* Readers: a pool; free ones on the stack rfree[0..nfree). */
        pthread_mutex_t rlock;
        pthread_cond_t rcond;
        struct reader readers[READERS];
        struct reader *rfree[READERS];
        size_t nfree;
};

static int sqlite_errno(sqlite3 *db, int rc)
{
        int sys = db ? sqlite3_system_errno(db) : 0;

        switch (rc & 0xff) {
        case SQLITE_NOMEM:
                return -ENOMEM;
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
                return -EBUSY;
        case SQLITE_FULL:
                return -ENOSPC;
        case SQLITE_READONLY:
                return -EROFS;
        case SQLITE_PERM:
        case SQLITE_AUTH:
                return -EACCES;
        case SQLITE_TOOBIG:
                return -E2BIG;
        case SQLITE_CANTOPEN:
        case SQLITE_IOERR:
                return sys > 0 ? -sys : -EIO;
        default:
                return -EIO;
        }
}

/* Sets *reterr to "<context>: <sqlite message>" and returns the matching -errno. */
static int sqlite_fail(sqlite3 *db, int rc, struct error **reterr, const char *fmt, ...)
        _printf_(4, 5);
static int sqlite_fail(sqlite3 *db, int rc, struct error **reterr, const char *fmt, ...)
{
        va_list ap;
        char *ctx;
        int r = sqlite_errno(db, rc);

        va_start(ap, fmt);
        if (vasprintf(&ctx, fmt, ap) < 0)
                abort();
        va_end(ap);
        error_set(reterr, -r, "%s: %s", ctx, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        free(ctx);
        return r;
}

static void stmt_done(sqlite3_stmt *st)
{
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **ret, struct error **reterr)
{
        int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, ret, NULL);

        if (rc != SQLITE_OK)
                return sqlite_fail(db, rc, reterr, "preparing \"%s\"", sql);
        return 0;
}

static void bind_key(sqlite3_stmt *st, const char *resource, const char *ns, const char *name)
{
        sqlite3_bind_text(st, 1, resource, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, ns, -1, SQLITE_STATIC);
        if (name)
                sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
}

/* Runs a statement that returns no rows. */
static int step_done(sqlite3 *db, sqlite3_stmt *st, struct error **reterr, const char *what)
{
        int rc = sqlite3_step(st);

        stmt_done(st);
        if (rc != SQLITE_DONE)
                return sqlite_fail(db, rc, reterr, "%s", what);
        return 0;
}

static int exec(sqlite3 *db, const char *sql, struct error **reterr)
{
        int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

        if (rc != SQLITE_OK)
                return sqlite_fail(db, rc, reterr, "opening store: running \"%s\"", sql);
        return 0;
}

static int open_db(const char *path, int flags, int busy_ms, sqlite3 **ret, struct error **reterr)
{
        sqlite3 *db = NULL;
        int rc;

        /* NOMUTEX: each connection is used by one thread at a time, under our own locks. */
        rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc != SQLITE_OK) {
                int r = sqlite_fail(db, rc, reterr, "opening store \"%s\"", path);
                sqlite3_close_v2(db);
                return r;
        }
        sqlite3_busy_timeout(db, busy_ms);
        *ret = db;
        return 0;
}

/* Reads one integer from a single-row query. */
static int query_int(sqlite3 *db, const char *sql, int64_t *ret, struct error **reterr)
{
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

        if (rc != SQLITE_OK)
                return sqlite_fail(db, rc, reterr, "opening store: running \"%s\"", sql);
        rc = sqlite3_step(st);
        if (rc != SQLITE_ROW) {
                int r = sqlite_fail(db, rc == SQLITE_DONE ? SQLITE_CORRUPT : rc, reterr,
                                    "opening store: running \"%s\"", sql);
                sqlite3_finalize(st);
                return r;
        }
        *ret = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return 0;
}

static int query_text(sqlite3 *db, const char *sql, char *buf, size_t size, struct error **reterr)
{
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

        if (rc != SQLITE_OK)
                return sqlite_fail(db, rc, reterr, "opening store: running \"%s\"", sql);
        rc = sqlite3_step(st);
        if (rc != SQLITE_ROW) {
                int r = sqlite_fail(db, rc == SQLITE_DONE ? SQLITE_CORRUPT : rc, reterr,
                                    "opening store: running \"%s\"", sql);
                sqlite3_finalize(st);
                return r;
        }
        (void) snprintf(buf, size, "%s", (const char *) sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        return 0;
}

static void reader_close(struct reader *rd)
{
        sqlite3_finalize(rd->get);
        sqlite3_finalize(rd->list_all);
        sqlite3_finalize(rd->list_ns);
        sqlite3_finalize(rd->rv);
        sqlite3_finalize(rd->begin);
        sqlite3_finalize(rd->end);
        sqlite3_close_v2(rd->db);
        *rd = (struct reader){ 0 };
}

static int reader_open(struct reader *rd, const char *path, int busy_ms, struct error **reterr)
{
        int r;

        r = open_db(path, SQLITE_OPEN_READWRITE, busy_ms, &rd->db, reterr);
        if (r >= 0)
                r = exec(rd->db, "PRAGMA query_only = ON", reterr);
        if (r >= 0)
                r = exec(rd->db, READER_CACHE_SIZE, reterr);
        if (r >= 0)
                r = prepare(rd->db, SQL_GET, &rd->get, reterr);
        if (r >= 0)
                r = prepare(rd->db, SQL_LIST_ALL, &rd->list_all, reterr);
        if (r >= 0)
                r = prepare(rd->db, SQL_LIST_NS, &rd->list_ns, reterr);
        if (r >= 0)
                r = prepare(rd->db, SQL_RV, &rd->rv, reterr);
        if (r >= 0)
                r = prepare(rd->db, "BEGIN", &rd->begin, reterr);
        if (r >= 0)
                r = prepare(rd->db, "COMMIT", &rd->end, reterr);
        return r;
}

static struct reader *reader_get(struct store_sqlite *s)
{
        struct reader *rd;

        pthread_mutex_lock(&s->rlock);
        while (s->nfree == 0)
                pthread_cond_wait(&s->rcond, &s->rlock);
        rd = s->rfree[--s->nfree];
        pthread_mutex_unlock(&s->rlock);
        return rd;
}

static void reader_put(struct store_sqlite *s, struct reader *rd)
{
        pthread_mutex_lock(&s->rlock);
        s->rfree[s->nfree++] = rd;
        pthread_cond_signal(&s->rcond);
        pthread_mutex_unlock(&s->rlock);
}

static void sqlite_free(struct store_backend *b)
{
        struct store_sqlite *s = (struct store_sqlite *) b;

        if (!s)
                return;
        for (size_t i = 0; i < READERS; i++)
                reader_close(&s->readers[i]);
        sqlite3_finalize(s->begin);
        sqlite3_finalize(s->commit);
        sqlite3_finalize(s->rollback);
        sqlite3_finalize(s->get);
        sqlite3_finalize(s->insert);
        sqlite3_finalize(s->update);
        sqlite3_finalize(s->delete);
        sqlite3_finalize(s->set_rv);
        /* close_v2 checkpoints the WAL into the main file when this is the last connection. */
        sqlite3_close_v2(s->wdb);
        pthread_mutex_destroy(&s->wlock);
        pthread_cond_destroy(&s->batch_cond);
        /* every writer waited for its flush: nothing is left unpublished */
        free(s->unpublished);
        if (s->wal_fd >= 0)
                (void) close(s->wal_fd);
        pthread_mutex_destroy(&s->slock);
        pthread_cond_destroy(&s->scond);
        pthread_mutex_destroy(&s->rlock);
        pthread_cond_destroy(&s->rcond);
        if (s->lock_fd >= 0)
                (void) close(s->lock_fd);
        free(s->path);
        free(s);
}

static uint64_t sqlite_current_rv(struct store_backend *b)
{
        struct store_sqlite *s = (struct store_sqlite *) b;

        return __atomic_load_n(&s->rv, __ATOMIC_ACQUIRE);
}

/* Reads the stored row at key into *ret_rv and *ret_obj (either may be NULL): 0, or -ENOENT
 * (without touching reterr: the caller words it). */
static int row_read(sqlite3 *db, sqlite3_stmt *st, const char *resource, const char *ns,
                    const char *name, uint64_t *ret_rv, json_t **ret_obj, struct error **reterr)
{
        int rc, r = 0;

        bind_key(st, resource, ns, name);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
                if (ret_rv)
                        *ret_rv = (uint64_t) sqlite3_column_int64(st, 0);
                if (ret_obj)
                        r = store_object_decode((const char *) sqlite3_column_text(st, 1),
                                                (size_t) sqlite3_column_bytes(st, 1), resource,
                                                name, ret_obj, reterr);
        } else if (rc == SQLITE_DONE) {
                r = -ENOENT;
        } else {
                r = sqlite_fail(db, rc, reterr, "reading %s \"%s\"", resource, name);
        }
        stmt_done(st);
        return r;
}

static void wait_durable(struct store_sqlite *s, uint64_t seq);

/* A reader connection sees commits not yet flushed: what it read at version rv is answered
 * once that is durable (a -ENOENT too: it may have seen a delete not yet flushed, rv 0). */
static void read_durable(struct store_sqlite *s, uint64_t rv)
{
        if (rv == 0 || rv > sqlite_current_rv(&s->base))
                wait_durable(s, __atomic_load_n(&s->committed_seq, __ATOMIC_ACQUIRE));
}

static int sqlite_get(struct store_backend *b, const char *resource, const char *ns,
                      const char *name, json_t **ret_obj, struct error **reterr)
{
        struct store_sqlite *s = (struct store_sqlite *) b;
        struct reader *rd = reader_get(s);
        uint64_t rv = 0;
        int r = row_read(rd->db, rd->get, resource, ns, name, &rv, ret_obj, reterr);

        reader_put(s, rd);
        read_durable(s, rv);
        if (r == -ENOENT)
                return store_error_not_found(reterr, resource, name);
        return r;
}

static int sqlite_list(struct store_backend *b, const char *resource, const char *ns,
                       json_t **ret_items, uint64_t *ret_rv, struct error **reterr)
{
        struct store_sqlite *s = (struct store_sqlite *) b;
        struct reader *rd = reader_get(s);
        sqlite3_stmt *st = ns ? rd->list_ns : rd->list_all;
        cleanup_json json_t *items = json_array();
        uint64_t rv = 0;
        int rc, r;

        /* One read transaction: the counter and the rows come from the same snapshot. */
        r = step_done(rd->db, rd->begin, reterr, "listing: starting a read");
        if (r < 0)
                goto out;
        rc = sqlite3_step(rd->rv);
        if (rc == SQLITE_ROW)
                rv = (uint64_t) sqlite3_column_int64(rd->rv, 0);
        stmt_done(rd->rv);
        if (rc != SQLITE_ROW) {
                r = sqlite_fail(rd->db, rc, reterr, "listing %s: reading the version", resource);
                goto end;
        }
        bind_key(st, resource, ns, NULL);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                json_t *o;

                r = store_object_decode((const char *) sqlite3_column_text(st, 0),
                                        (size_t) sqlite3_column_bytes(st, 0), resource, "(list)",
                                        &o, reterr);
                if (r < 0)
                        break;
                json_array_append_new(items, o);
        }
        stmt_done(st);
        if (r >= 0 && rc != SQLITE_DONE)
                r = sqlite_fail(rd->db, rc, reterr, "listing %s", resource);
end:
        (void) step_done(rd->db, rd->end, NULL, "listing: ending a read");
out:
        reader_put(s, rd);
        read_durable(s, rv);
        if (r < 0)
                return r;
        *ret_items = TAKE_PTR(items);
        *ret_rv = rv;
        return 0;
}

/* ------------------------------------------------------------------ group commit */

/* Takes wlock, counted as queued while it waits: a writer that finds others queued leaves the
 * batch's transaction open for them. */
static void writer_lock(struct store_sqlite *s)
{
        atomic_fetch_add(&s->queued, 1);
        pthread_mutex_lock(&s->wlock);
        atomic_fetch_sub(&s->queued, 1);
}

/* The resourceVersion the next write takes. Under wlock. */
static uint64_t next_rv(const struct store_sqlite *s)
{
        return (s->txn_open ? s->pending_rv : s->committed_rv) + 1;
}

/* Opens the batch's transaction unless one is open. Under wlock. */
static int batch_begin(struct store_sqlite *s, const char *what, struct error **reterr)
{
        int r;

        if (s->txn_open)
                return 0;
        r = step_done(s->wdb, s->begin, reterr, what);
        if (r < 0)
                return r;
        s->txn_open = true;
        s->pending_rv = s->committed_rv;
        return 0;
}

/* The writer's answer (its write, or a read that saw the batch's writes) stands or falls with the
 * open batch: it joins as storage unless it joined already (m). Returns its member. Under wlock,
 * with the transaction open. */
static struct batch_member *batch_join(struct store_sqlite *s, struct batch_member *m,
                                       struct batch_member *storage)
{
        if (m)
                return m;
        *storage = (struct batch_member){ .next = s->members };
        s->members = storage;
        return storage;
}

/* The write at rv is in the open transaction: its event (obj and json, owned by the batch from
 * here) goes out when the batch is committed and durable. Under wlock. */
static void batch_event(struct store_sqlite *s, enum store_event_type type, const char *resource,
                        const char *ns, uint64_t rv, json_t *obj, char *json)
{
        s->events[s->n_events++] = (struct batch_event){ type, resource, ns, rv, obj, json, 0 };
        s->pending_rv = rv;
}

/* Ends the open batch: every member learns the result r (0, or -errno with message) and the
 * commit its answer waits for, and is woken. On success (committed: r >= 0 with events) the
 * events wait in s->unpublished for the flush that makes them durable. Under wlock. */
static void batch_end(struct store_sqlite *s, int r, const char *message, bool committed)
{
        if (committed) {
                uint64_t seq = s->committed_seq + 1;

                pthread_mutex_lock(&s->slock);
                if (s->n_unpublished + s->n_events > s->cap_unpublished) {
                        s->cap_unpublished = 2 * s->cap_unpublished + s->n_events;
                        s->unpublished = xrealloc(s->unpublished,
                                                  s->cap_unpublished * sizeof(*s->unpublished));
                }
                for (size_t i = 0; i < s->n_events; i++) {
                        s->events[i].seq = seq;
                        s->unpublished[s->n_unpublished++] = s->events[i];
                }
                pthread_mutex_unlock(&s->slock);
                /* after the events are queued: a flush that reads seq publishes them */
                __atomic_store_n(&s->committed_seq, seq, __ATOMIC_RELEASE);
                s->committed_rv = s->pending_rv;
        } else {
                for (size_t i = 0; i < s->n_events; i++) {
                        json_decref(s->events[i].obj);
                        free(s->events[i].json);
                }
        }
        s->n_events = 0;
        for (struct batch_member *m = s->members; m; m = m->next) {
                m->result = r;
                m->seq = s->committed_seq;
                if (r < 0)
                        (void) snprintf(m->message, sizeof(m->message), "%s", message);
                m->done = true;
        }
        s->members = NULL;
        s->txn_open = false;
        pthread_cond_broadcast(&s->batch_cond);
}

/* Publishes the events of the commits up to seq, in order, and moves the durable counter.
 * Under slock. */
static void publish_durable(struct store_sqlite *s, uint64_t seq)
{
        size_t n = 0;

        while (n < s->n_unpublished && s->unpublished[n].seq <= seq) {
                struct batch_event *e = &s->unpublished[n++];

                watch_cache_publish(s->base.cache, e->type, e->resource, e->ns, e->rv, e->obj,
                                    e->json);
        }
        if (n > 0)
                __atomic_store_n(&s->rv, s->unpublished[n - 1].rv, __ATOMIC_RELEASE);
        memmove(s->unpublished, s->unpublished + n,
                (s->n_unpublished - n) * sizeof(*s->unpublished));
        s->n_unpublished -= n;
        s->durable_seq = seq;
}

/* Returns once the commit seq is durable and published: the first waiter flushes the WAL for
 * every commit so far, the others wait for its flush (and flush again if theirs came after it
 * began). A failed flush leaves committed writes whose place on disk is unknown: SQLite would
 * go on serving them, so the process stops (as PostgreSQL does) and the next open recovers
 * what the disk holds. Without wlock. */
static void wait_durable(struct store_sqlite *s, uint64_t seq)
{
        pthread_mutex_lock(&s->slock);
        while (s->durable_seq < seq) {
                uint64_t target;

                if (s->flushing) {
                        pthread_cond_wait(&s->scond, &s->slock);
                        continue;
                }
                s->flushing = true;
                target = __atomic_load_n(&s->committed_seq, __ATOMIC_ACQUIRE);
                pthread_mutex_unlock(&s->slock);
                if (fdatasync(s->wal_fd) < 0) {
                        (void) fprintf(stderr, "flexlet: store \"%s\": flushing the log: %s\n",
                                       s->path, strerror(errno));
                        abort();
                }
                pthread_mutex_lock(&s->slock);
                publish_durable(s, target);
                s->flushing = false;
                pthread_cond_broadcast(&s->scond);
        }
        pthread_mutex_unlock(&s->slock);
}

/* Commits the open batch: the counter row moved to the batch's last version, one COMMIT for
 * all its writes (made durable by the flush its writers wait for). Under wlock. */
static void batch_commit(struct store_sqlite *s)
{
        cleanup_error struct error *err = NULL;
        int r;

        if (sqlite3_get_autocommit(s->wdb)) {
                /* a failed statement (disk full, I/O error) rolled the whole transaction back */
                batch_end(s, -EIO,
                          "committing: the transaction was rolled back by an earlier error", false);
                return;
        }
        if (s->n_events == 0) {
                /* its writers' statements all failed alone: nothing to make durable */
                (void) step_done(s->wdb, s->rollback, NULL, "rolling back");
                batch_end(s, 0, NULL, false);
                return;
        }
        sqlite3_bind_int64(s->set_rv, 1, (sqlite3_int64) s->pending_rv);
        r = step_done(s->wdb, s->set_rv, &err, "committing");
        if (r >= 0)
                r = step_done(s->wdb, s->commit, &err, "committing");
        if (r < 0) {
                /* A failed COMMIT may already have rolled back; a second ROLLBACK is harmless. */
                if (!sqlite3_get_autocommit(s->wdb))
                        (void) step_done(s->wdb, s->rollback, NULL, "rolling back");
                batch_end(s, r, err->message, false);
                return;
        }
        batch_end(s, 0, NULL, true);
}

/* A writer's last step under wlock, whatever it did: with others queued behind it (and the
 * batch not full) it leaves the batch open for them, else it commits it; a member then waits
 * for its batch's end and takes its result. Returns r, or the batch's failure, and in *ret_seq
 * the commit the answer waits to be durable for (writer_unlock): its batch's, or for a writer
 * that did not join one the last commit, whose rows it may have read. */
static int writer_finish(struct store_sqlite *s, struct batch_member *m, int r, uint64_t *ret_seq,
                         struct error **reterr)
{
        if (s->txn_open && (atomic_load(&s->queued) == 0 || s->n_events == BATCH_MAX))
                batch_commit(s);
        *ret_seq = s->committed_seq;
        if (!m)
                return r;
        while (!m->done)
                pthread_cond_wait(&s->batch_cond, &s->wlock);
        *ret_seq = m->seq;
        if (m->result < 0 && r >= 0) {
                error_set(reterr, -m->result, "%s", m->message);
                return m->result;
        }
        return r;
}

/* Releases wlock, then waits for the commit seq to be durable (writer_finish). */
static void writer_unlock(struct store_sqlite *s, uint64_t seq)
{
        pthread_mutex_unlock(&s->wlock);
        wait_durable(s, seq);
}

static int sqlite_create(struct store_backend *b, const char *resource, const char *ns,
                         const char *name, json_t *obj, struct error **reterr)
{
        struct store_sqlite *s = (struct store_sqlite *) b;
        struct store_stamp_saved saved;
        struct batch_member member, *m = NULL;
        cleanup_free char *json = NULL;
        size_t len;
        uint64_t rv, seq;
        int r;

        writer_lock(s);
        rv = next_rv(s);
        store_object_stamp(obj, rv, &saved);
        r = store_object_encode(obj, resource, name, &json, &len, reterr);
        if (r < 0)
                goto out;
        r = batch_begin(s, "creating: starting a write", reterr);
        if (r < 0)
                goto out;
        bind_key(s->insert, resource, ns, name);
        sqlite3_bind_int64(s->insert, 4, (sqlite3_int64) rv);
        sqlite3_bind_text(s->insert, 5, json, (int) len, SQLITE_STATIC);
        r = sqlite3_step(s->insert);
        stmt_done(s->insert);
        if (r == SQLITE_CONSTRAINT) {
                /* the statement alone is undone: the batch goes on */
                r = store_error_exists(reterr, resource, name);
                goto out;
        }
        if (r != SQLITE_DONE) {
                r = sqlite_fail(s->wdb, r, reterr, "creating %s \"%s\"", resource, name);
                goto out;
        }
        m = batch_join(s, m, &member);
        batch_event(s, STORE_EVENT_ADDED, resource, ns, rv, watch_cache_intern(s->base.cache, obj),
                    TAKE_PTR(json));
        r = 0;
out:
        r = writer_finish(s, m, r, &seq, reterr);
        if (r < 0)
                store_object_unstamp(obj, &saved);
        else
                store_stamp_saved_release(&saved);
        writer_unlock(s, seq);
        return r;
}

/* known is not trusted to be the stored object: callers share parts of it with the object they
 * write (keep_server_metadata), so the row is what obj is compared with. */
static int sqlite_update(struct store_backend *b, const char *resource, const char *ns,
                         const char *name, json_t *obj, uint64_t expected_rv, const json_t *known,
                         json_t **ret_current, struct error **reterr)
{
        struct store_sqlite *s = (struct store_sqlite *) b;
        struct store_stamp_saved saved = { 0 };
        struct batch_member member, *m = NULL;
        cleanup_json json_t *old = NULL, *current = NULL;
        cleanup_free char *json = NULL;
        const json_t *stored;
        bool stamped = false;
        uint64_t old_rv, rv, seq;
        size_t len;
        int r;

        writer_lock(s);
        /* Every write happens under wlock: the row read is the one the write replaces, the
         * open batch's writes included (then this answer stands or falls with the batch).
         * When the caller's known object is the stored version (a version is one write's), the
         * row's version is all there is to read: its JSON is not decoded again. */
        if (s->txn_open)
                m = batch_join(s, m, &member);
        r = row_read(s->wdb, s->get, resource, ns, name, &old_rv, known ? NULL : &old, reterr);
        if (r >= 0 && known && store_object_rv(known) != old_rv)
                r = row_read(s->wdb, s->get, resource, ns, name, &old_rv, &old, reterr);
        if (r == -ENOENT)
                r = store_error_not_found(reterr, resource, name);
        if (r < 0)
                goto out;
        if (expected_rv && expected_rv != old_rv) {
                current = TAKE_PTR(old);
                r = store_error_conflict(reterr, resource, name);
                goto out;
        }
        stored = old ? old : known;
        /* K8S: an update that changes nothing writes nothing and keeps the resourceVersion
         * (kubectl then prints "unchanged" / "(no change)"). Stamped with the stored version,
         * obj equals the stored object exactly when only resourceVersion differed. */
        store_object_stamp(obj, old_rv, &saved);
        stamped = true;
        if (json_equal(obj, stored)) {
                r = 0;
                goto out;
        }
        rv = next_rv(s);
        store_object_stamp(obj, rv, NULL);
        r = store_object_encode(obj, resource, name, &json, &len, reterr);
        if (r < 0)
                goto out;
        r = batch_begin(s, "updating: starting a write", reterr);
        if (r < 0)
                goto out;
        bind_key(s->update, resource, ns, name);
        sqlite3_bind_int64(s->update, 4, (sqlite3_int64) rv);
        sqlite3_bind_text(s->update, 5, json, (int) len, SQLITE_STATIC);
        r = step_done(s->wdb, s->update, reterr, "updating: writing");
        if (r < 0)
                goto out;
        m = batch_join(s, m, &member);
        batch_event(s, STORE_EVENT_MODIFIED, resource, ns, rv,
                    watch_cache_intern(s->base.cache, obj), TAKE_PTR(json));
        r = 1;
out:
        r = writer_finish(s, m, r, &seq, reterr);
        if (r < 0 && stamped)
                store_object_unstamp(obj, &saved);
        else if (stamped)
                store_stamp_saved_release(&saved);
        if (r == -ESTALE && current && ret_current)
                *ret_current = TAKE_PTR(current);
        writer_unlock(s, seq);
        return r;
}

static int sqlite_delete(struct store_backend *b, const char *resource, const char *ns,
                         const char *name, uint64_t expected_rv, json_t **ret_last,
                         struct error **reterr)
{
        struct store_sqlite *s = (struct store_sqlite *) b;
        struct batch_member member, *m = NULL;
        cleanup_json json_t *old = NULL, *last = NULL;
        uint64_t old_rv, rv, seq;
        int r;

        writer_lock(s);
        if (s->txn_open)
                m = batch_join(s, m, &member);
        r = row_read(s->wdb, s->get, resource, ns, name, &old_rv, &old, reterr);
        if (r == -ENOENT)
                r = store_error_not_found(reterr, resource, name);
        if (r < 0)
                goto out;
        if (expected_rv && expected_rv != old_rv) {
                r = store_error_precondition(reterr, resource, name, expected_rv, old_rv);
                goto out;
        }
        rv = next_rv(s);
        r = batch_begin(s, "deleting: starting a write", reterr);
        if (r < 0)
                goto out;
        bind_key(s->delete, resource, ns, name);
        r = step_done(s->wdb, s->delete, reterr, "deleting: writing");
        if (r < 0)
                goto out;
        /* K8S: the DELETED event carries the last state with the deletion's resourceVersion. */
        store_object_stamp(old, rv, NULL);
        if (ret_last)
                last = json_deep_copy(old);
        m = batch_join(s, m, &member);
        batch_event(s, STORE_EVENT_DELETED, resource, ns, rv,
                    watch_cache_intern(s->base.cache, old), NULL);
        r = 0;
out:
        r = writer_finish(s, m, r, &seq, reterr);
        if (r >= 0 && ret_last)
                *ret_last = TAKE_PTR(last);
        writer_unlock(s, seq);
        return r;
}

static const struct store_backend_ops sqlite_ops = {
        .name = "sqlite",
        .free = sqlite_free,
        .current_rv = sqlite_current_rv,
        .get = sqlite_get,
        .list = sqlite_list,
        .create = sqlite_create,
        .update = sqlite_update,
        .delete = sqlite_delete,
};

/* A descriptor of the WAL of our own, for wait_durable's fdatasync: the file stays while any
 * connection is open (SQLite removes it when the last one closes), and a flush of the inode
 * covers what SQLite's descriptor wrote. The schema's transaction has created it. */
static int open_wal(struct store_sqlite *s, struct error **reterr)
{
        cleanup_free char *wal = xasprintf("%s-wal", s->path);

        s->wal_fd = open(wal, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (s->wal_fd < 0) {
                int e = errno;

                return error_set(reterr, e, "opening store: \"%s\": %s", wal, strerror(e));
        }
        return 0;
}

/* Creates the tables on a new database, checks the schema version of an old one. */
static int schema_init(sqlite3 *db, const char *path, struct error **reterr)
{
        int64_t version;
        int r;

        r = exec(db, "BEGIN IMMEDIATE", reterr);
        if (r < 0)
                return r;
        r = query_int(db, "PRAGMA user_version", &version, reterr);
        if (r >= 0 && version > SCHEMA_VERSION)
                r = error_set(reterr, EPROTO,
                              "opening store \"%s\": schema version %" PRId64
                              " is newer than this flexlet understands (%d)",
                              path, version, SCHEMA_VERSION);
        if (r >= 0)
                r = exec(db, schema_sql, reterr);
        if (r >= 0 && version < SCHEMA_VERSION)
                r = exec(db, "PRAGMA user_version = 1", reterr);
        if (r >= 0)
                r = exec(db, "COMMIT", reterr);
        if (r < 0 && !sqlite3_get_autocommit(db))
                (void) exec(db, "ROLLBACK", NULL);
        return r;
}

/* The counter and the watch cache live in this process's memory, so a second owner (another
 * flexlet on the same data dir, or a second open here) would hand out versions twice. A flock
 * on a separate file refuses it: SQLite's own POSIX locks on the database are dropped by
 * closing any descriptor of that file, so the database itself is not touched. */
static int lock_owner(struct store_sqlite *s, struct error **reterr)
{
        cleanup_free char *lock_path = xasprintf("%s-lock", s->path);

        s->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
        if (s->lock_fd < 0) {
                int e = errno;

                return error_set(reterr, e, "opening store \"%s\": %s", lock_path, strerror(e));
        }
        if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
                int e = errno;

                if (e == EWOULDBLOCK)
                        return error_set(reterr, EBUSY,
                                         "opening store \"%s\": in use by another owner", s->path);
                return error_set(reterr, e, "opening store \"%s\": locking: %s", lock_path,
                                 strerror(e));
        }
        return 0;
}

int store_sqlite_open(const char *path, const struct store_options *o, struct store_backend **ret,
                      struct error **reterr)
{
        struct store_sqlite *s;
        int busy = o && o->busy_timeout_ms > 0 ? o->busy_timeout_ms : STORE_BUSY_TIMEOUT_DEFAULT;
        char mode[16];
        int64_t rv;
        int r;

        if (!sqlite3_threadsafe())
                return error_set(reterr, ENOTSUP,
                                 "opening store: libsqlite3 is built without thread support");
        s = xcalloc(1, sizeof(*s));
        s->base.ops = &sqlite_ops;
        s->path = xstrdup(path);
        s->lock_fd = -1;
        s->wal_fd = -1;
        if (pthread_mutex_init(&s->wlock, NULL) != 0 || pthread_mutex_init(&s->rlock, NULL) ||
            pthread_cond_init(&s->rcond, NULL) != 0 ||
            pthread_cond_init(&s->batch_cond, NULL) != 0 ||
            pthread_mutex_init(&s->slock, NULL) != 0 || pthread_cond_init(&s->scond, NULL) != 0)
                abort();

        r = lock_owner(s, reterr);
        if (r < 0)
                goto fail;
        r = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, busy, &s->wdb, reterr);
        if (r < 0)
                goto fail;
        /* WAL: readers never block the writer nor the writer them. synchronous=NORMAL: a commit
         * is not flushed under wlock; its writer flushes the WAL after (wait_durable), so a
         * write that returned survives power loss. SQLite still flushes the WAL before each
         * checkpoint copies it into the database. */
        r = query_text(s->wdb, "PRAGMA journal_mode = WAL", mode, sizeof(mode), reterr);
        if (r >= 0 && strcmp(mode, "wal") != 0)
                r = error_set(reterr, ENOTSUP,
                              "opening store \"%s\": cannot use a write-ahead log (journal mode "
                              "is \"%s\")",
                              path, mode);
        if (r >= 0)
                r = exec(s->wdb, "PRAGMA synchronous = NORMAL", reterr);
        if (r >= 0)
                r = exec(s->wdb, WRITER_CACHE_SIZE, reterr);
        if (r >= 0)
                r = schema_init(s->wdb, path, reterr);
        if (r >= 0)
                r = query_int(s->wdb, SQL_RV, &rv, reterr);
        if (r < 0)
                goto fail;
        if (rv < 0) {
                r = error_set(reterr, EIO, "opening store \"%s\": negative resourceVersion", path);
                goto fail;
        }
        s->rv = s->committed_rv = (uint64_t) rv;
        r = open_wal(s, reterr);
        if (r < 0)
                goto fail;

        r = prepare(s->wdb, "BEGIN IMMEDIATE", &s->begin, reterr);
        if (r >= 0)
                r = prepare(s->wdb, "COMMIT", &s->commit, reterr);
        if (r >= 0)
                r = prepare(s->wdb, "ROLLBACK", &s->rollback, reterr);
        if (r >= 0)
                r = prepare(s->wdb, SQL_GET, &s->get, reterr);
        if (r >= 0)
                r = prepare(s->wdb,
                            "INSERT INTO objects (resource, namespace, name, rv, json)"
                            " VALUES (?1, ?2, ?3, ?4, ?5)",
                            &s->insert, reterr);
        if (r >= 0)
                r = prepare(s->wdb,
                            "UPDATE objects SET rv = ?4, json = ?5"
                            " WHERE resource = ?1 AND namespace = ?2 AND name = ?3",
                            &s->update, reterr);
        if (r >= 0)
                r = prepare(s->wdb,
                            "DELETE FROM objects"
                            " WHERE resource = ?1 AND namespace = ?2 AND name = ?3",
                            &s->delete, reterr);
        if (r >= 0)
                r = prepare(s->wdb, "UPDATE revision SET rv = ?1 WHERE id = 1", &s->set_rv, reterr);
        for (size_t i = 0; r >= 0 && i < READERS; i++) {
                r = reader_open(&s->readers[i], path, busy, reterr);
                s->rfree[s->nfree++] = &s->readers[i];
        }
        if (r < 0)
                goto fail;
        *ret = &s->base;
        return 0;
fail:
        sqlite_free(&s->base);
        return r;
}
