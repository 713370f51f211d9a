/* test-store.c: the store contract (store.h), in a temporary folder on SQLite or, built as
 * test-store-etcd.c (STORE_TEST_ETCD), on a real etcd this test starts on loopback ports in a
 * temporary folder and removes after: CRUD and its errors, optimistic concurrency, no-op
 * updates, list order and version, watches (from 0, replay, too old, DELETED, slow watchers,
 * close), concurrent writers, reopening; on etcd also the key layout, paged lists, two stores on
 * one etcd, compaction, TTLs through leases and failover between endpoints. Versions are
 * counted from the store's version when a test starts (etcd's revision is not 0 then). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifndef STORE_TEST_ETCD
# include <sqlite3.h>
# include <sys/syscall.h>
#endif

#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

struct fixture {
        char dir[256];
        char path[300];
        struct store *s;
};

/* The store's version when the test started: R(n) is the version of its n-th write. */
static uint64_t base_rv;
#define R(n) (base_rv + (uint64_t) (n))

#ifdef STORE_TEST_ETCD
# include "unit/store/etcd-harness.h"

static int open_with(struct fixture *f, const struct store_options *o)
{
        const struct store_etcd_options eo = { .endpoints = etcd_endpoint() };
        struct error *err = NULL;
        int r = store_open_etcd(&eo, o, &f->s, &err);

        if (r < 0)
                fail_msg("store_open_etcd: %s", err ? err->message : "?");
        error_free(err);
        return r;
}

static void remove_db(struct fixture *f)
{
        (void) f;
        etcd_wipe();
}
#else
static void remove_db(struct fixture *f)
{
        static const char *const suffixes[] = { "", "-wal", "-shm", "-journal", "-lock" };

        for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
                char p[320];

                (void) snprintf(p, sizeof(p), "%s%s", f->path, suffixes[i]);
                (void) unlink(p);
        }
}

static int open_with(struct fixture *f, const struct store_options *o)
{
        struct error *err = NULL;
        int r = store_open_sqlite_with(f->path, o, &f->s, &err);

        if (r < 0)
                fail_msg("store_open_sqlite: %s", err ? err->message : "?");
        error_free(err);
        return r;
}
#endif

static int setup(void **state)
{
        struct fixture *f = xcalloc(1, sizeof(*f));
        const char *tmp = getenv("TMPDIR");

        (void) snprintf(f->dir, sizeof(f->dir), "%s/flexlet-store-XXXXXX", tmp ? tmp : "/tmp");
        if (!mkdtemp(f->dir))
                return -1;
        (void) snprintf(f->path, sizeof(f->path), "%s/store.db", f->dir);
        open_with(f, NULL);
        base_rv = store_current_rv(f->s);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *f = *state;

        store_close(f->s);
        remove_db(f);
        (void) rmdir(f->dir);
        free(f);
        return 0;
}

static void reopen(struct fixture *f, const struct store_options *o)
{
        f->s = store_close(f->s);
        assert_int_equal(open_with(f, o), 0);
}

static json_t *pod(const char *ns, const char *name, const char *image)
{
        json_t *o = json_pack("{s:s, s:s, s:{s:s}, s:{s:[{s:s, s:s}]}}", "apiVersion", "v1", "kind",
                              "Pod", "metadata", "name", name, "spec", "containers", "name", "c",
                              "image", image);

        if (ns && *ns)
                json_object_set_new(json_object_get(o, "metadata"), "namespace", json_string(ns));
        return o;
}

static const char *rv_of(const json_t *o)
{
        return json_path_string(o, "metadata.resourceVersion");
}

static void create_ok(struct store *s, const char *resource, const char *ns, const char *name,
                      const char *image)
{
        cleanup_json json_t *o = pod(ns, name, image);
        struct error *err = NULL;
        int r = store_create(s, resource, ns, name, o, &err);

        if (r < 0)
                fail_msg("create %s: %s", name, err->message);
        assert_int_equal(r, 0);
        error_free(err);
}

/* o's resourceVersion is R(n). */
static void assert_rv(const json_t *o, uint64_t n)
{
        char buf[24];

        (void) snprintf(buf, sizeof(buf), "%" PRIu64, R(n));
        assert_non_null(rv_of(o));
        assert_string_equal(rv_of(o), buf);
}

/* err's message is fmt with the two versions R(a) and R(b) in its two %s. */
static void assert_message(struct error *err, const char *fmt, uint64_t a, uint64_t b)
{
        char va[24], vb[24];
        cleanup_free char *want = NULL;

        (void) snprintf(va, sizeof(va), "%" PRIu64, R(a));
        (void) snprintf(vb, sizeof(vb), "%" PRIu64, R(b));
        want = xasprintf(fmt, va, vb);
        assert_non_null(err);
        assert_string_equal(err->message, want);
}

/* The next event of w is type on name at R(n). */
static void next_event(struct store_watch *w, enum store_event_type type, uint64_t n,
                       const char *name)
{
        struct store_event ev = { 0 };
        uint64_t rv = R(n);
        char buf[24];

        assert_int_equal(store_watch_next(w, 5000, &ev), 1);
        assert_string_equal(store_event_type_to_string(ev.type), store_event_type_to_string(type));
        assert_int_equal(ev.rv, rv);
        assert_string_equal(json_path_string(ev.object, "metadata.name"), name);
        (void) snprintf(buf, sizeof(buf), "%llu", (unsigned long long) rv);
        assert_string_equal(rv_of(ev.object), buf);
        store_event_release(&ev);
}

static void no_event(struct store_watch *w)
{
        struct store_event ev = { 0 };

        assert_int_equal(store_watch_next(w, 0, &ev), 0);
}

/* --- plain functions --- */

static void test_rv_parse(void **state)
{
        static const struct {
                const char *in;
                int r;
                uint64_t v;
        } cases[] = {
                { "0", 0, 0 },
                { "1", 0, 1 },
                { "1234567", 0, 1234567 },
                { "18446744073709551615", 0, UINT64_MAX },
                { "18446744073709551616", -EINVAL, 0 },
                { "01", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "-1", -EINVAL, 0 },
                { "+1", -EINVAL, 0 },
                { " 1", -EINVAL, 0 },
                { "1 ", -EINVAL, 0 },
                { "1a", -EINVAL, 0 },
                { NULL, -EINVAL, 0 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                uint64_t v = 42;
                int r = store_rv_parse(cases[i].in, &v);

                assert_int_equal(r, cases[i].r);
                assert_int_equal(v, cases[i].r == 0 ? cases[i].v : 42);
        }
}

static void test_event_type_strings(void **state)
{
        static const char *const names[] = { "ADDED", "MODIFIED", "DELETED" };

        for (int t = 0; t < STORE_EVENT_TYPE_MAX; t++) {
                assert_string_equal(store_event_type_to_string(t), names[t]);
                assert_int_equal(store_event_type_from_string(names[t]), t);
        }
        assert_null(store_event_type_to_string(STORE_EVENT_TYPE_MAX));
        assert_int_equal(store_event_type_from_string("BOOKMARK"), -EINVAL);
        assert_int_equal(store_event_type_from_string("added"), -EINVAL);
}

/* --- CRUD --- */

static void test_crud(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *o = pod("default", "web", "busybox");
        cleanup_json json_t *got = NULL, *last = NULL, *got2 = NULL;
        struct error *err = NULL;

        assert_int_equal(store_current_rv(f->s), R(0));
        assert_int_equal(store_create(f->s, "pods", "default", "web", o, NULL), 0);
        assert_rv(o, 1);
        assert_int_equal(store_current_rv(f->s), R(1));

        assert_int_equal(store_get(f->s, "pods", "default", "web", &got, NULL), 0);
        assert_true(json_equal(got, o));

        json_object_set_new(json_object_get(o, "metadata"), "labels",
                            json_pack("{s:s}", "app", "web"));
        assert_int_equal(store_update(f->s, "pods", "default", "web", o, R(1), NULL), 1);
        assert_rv(o, 2);
        assert_int_equal(store_get(f->s, "pods", "default", "web", &got2, NULL), 0);
        assert_string_equal(json_path_string(got2, "metadata.labels.app"), "web");
        assert_rv(got2, 2);

        assert_int_equal(store_delete(f->s, "pods", "default", "web", 0, &last, NULL), 0);
        assert_rv(last, 3);
        assert_string_equal(json_path_string(last, "metadata.labels.app"), "web");
        assert_int_equal(store_current_rv(f->s), R(3));

        json_decref(got);
        got = NULL;
        assert_int_equal(store_get(f->s, "pods", "default", "web", &got, &err), -ENOENT);
        assert_null(got);
        assert_string_equal(err->message, "pods \"web\" not found");
        err = error_free(err);

        /* K8S: NotFound for update and delete of a missing object too. */
        assert_int_equal(store_update(f->s, "pods", "default", "web", o, 0, &err), -ENOENT);
        assert_string_equal(err->message, "pods \"web\" not found");
        err = error_free(err);
        assert_int_equal(store_delete(f->s, "pods", "default", "web", 0, NULL, NULL), -ENOENT);
        assert_int_equal(store_current_rv(f->s), R(3));
}

static void test_key_is_resource_namespace_name(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *a = NULL, *b = NULL, *c = NULL;
        json_t *missing = NULL;

        create_ok(f->s, "pods", "one", "x", "a");
        create_ok(f->s, "pods", "two", "x", "b");
        create_ok(f->s, "configmaps", "one", "x", "c");
        /* Cluster-scoped: NULL and "" are the same namespace. */
        create_ok(f->s, "nodes", NULL, "x", "d");
        assert_int_equal(store_get(f->s, "pods", "one", "x", &a, NULL), 0);
        assert_int_equal(store_get(f->s, "pods", "two", "x", &b, NULL), 0);
        assert_int_equal(store_get(f->s, "nodes", "", "x", &c, NULL), 0);
        assert_string_equal(json_string_value(json_object_get(
                                    json_array_get(json_path(a, "spec.containers"), 0), "image")),
                            "a");
        assert_string_equal(json_string_value(json_object_get(
                                    json_array_get(json_path(b, "spec.containers"), 0), "image")),
                            "b");
        assert_rv(c, 4);
        assert_int_equal(store_get(f->s, "pods", "three", "x", &missing, NULL), -ENOENT);
        assert_null(missing);
}

static void test_create_existing(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *o = pod("default", "web", "other");
        cleanup_json json_t *before = NULL, *got = NULL;
        struct error *err = NULL;

        create_ok(f->s, "pods", "default", "web", "busybox");
        before = json_deep_copy(o);
        /* K8S: create of an existing name → 409 AlreadyExists. */
        assert_int_equal(store_create(f->s, "pods", "default", "web", o, &err), -EEXIST);
        assert_string_equal(err->message, "pods \"web\" already exists");
        error_free(err);
        assert_true(json_equal(o, before)); /* not stamped */
        assert_int_equal(store_current_rv(f->s), R(1));
        assert_int_equal(store_get(f->s, "pods", "default", "web", &got, NULL), 0);
        assert_rv(got, 1);
}

static void test_invalid_arguments(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *arr = json_array(), *o = pod("", "x", "i");
        json_t *got = NULL;

        assert_int_equal(store_create(f->s, "pods", "ns", "x", arr, NULL), -EINVAL);
        assert_int_equal(store_create(f->s, "", "ns", "x", o, NULL), -EINVAL);
        assert_int_equal(store_create(f->s, "pods", "ns", "", o, NULL), -EINVAL);
        assert_int_equal(store_create(f->s, "pods", "ns", NULL, o, NULL), -EINVAL);
        assert_int_equal(store_update(f->s, "pods", "ns", "x", arr, 0, NULL), -EINVAL);
        assert_int_equal(store_get(f->s, NULL, "ns", "x", &got, NULL), -EINVAL);
        assert_int_equal(store_current_rv(f->s), R(0));
        assert_null(json_path(o, "metadata.resourceVersion"));
}

static void test_too_big(void **state)
{
        struct fixture *f = *state;
        size_t n = STORE_MAX_OBJECT_BYTES;
        char *big = xmalloc(n + 1);
        cleanup_json json_t *o = pod("default", "big", "busybox"), *before = NULL;
        struct error *err = NULL;

        memset(big, 'x', n);
        big[n] = '\0';
        json_object_set_new(o, "data", json_string(big));
        before = json_deep_copy(o);
        assert_int_equal(store_create(f->s, "configmaps", "default", "big", o, &err), -E2BIG);
        assert_non_null(strstr(err->message, "limit is 3145728"));
        err = error_free(err);
        assert_true(json_equal(o, before));
        assert_int_equal(store_current_rv(f->s), R(0));

        /* Just under the cap is stored. */
        big[n - 200] = '\0';
        json_object_set_new(o, "data", json_string(big));
        assert_int_equal(store_create(f->s, "configmaps", "default", "big", o, NULL), 0);
        /* Growing it past the cap by update is refused the same way, and changes nothing. */
        big[n - 200] = 'x';
        json_object_set_new(o, "data", json_string(big));
        assert_int_equal(store_update(f->s, "configmaps", "default", "big", o, 0, NULL), -E2BIG);
        assert_rv(o, 1);
        assert_int_equal(store_current_rv(f->s), R(1));
        free(big);
}

/* --- optimistic concurrency --- */

static void test_conflict(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *o = pod("default", "web", "v2");
        struct error *err = NULL;

        create_ok(f->s, "pods", "default", "web", "v1");   /* rv 1 */
        create_ok(f->s, "pods", "default", "other", "v1"); /* rv 2 */

        /* K8S: resourceVersion mismatch → 409 Conflict with OptimisticLockErrorMsg. */
        assert_int_equal(store_update(f->s, "pods", "default", "web", o, R(2), &err), -ESTALE);
        assert_string_equal(err->message,
                            "Operation cannot be fulfilled on pods \"web\": the object has been "
                            "modified; please apply your changes to the latest version and try "
                            "again");
        err = error_free(err);
        assert_null(json_path(o, "metadata.resourceVersion"));

        assert_int_equal(store_update(f->s, "pods", "default", "web", o, R(1), NULL), 1);
        assert_rv(o, 3);
        /* The old version no longer matches: the second writer of a read-modify-write loses. */
        assert_int_equal(store_update(f->s, "pods", "default", "web", o, R(1), NULL), -ESTALE);

        /* K8S: delete precondition mismatch → 409 Conflict naming both versions. */
        assert_int_equal(store_delete(f->s, "pods", "default", "web", R(1), NULL, &err), -ESTALE);
        assert_message(err,
                       "Operation cannot be fulfilled on pods \"web\": Precondition failed: "
                       "ResourceVersion in precondition: %s, ResourceVersion in object "
                       "meta: %s",
                       1, 3);
        err = error_free(err);
        assert_int_equal(store_current_rv(f->s), R(3));
        assert_int_equal(store_delete(f->s, "pods", "default", "web", R(3), NULL, NULL), 0);
        assert_int_equal(store_current_rv(f->s), R(4));
}

/* store_update_from: the update the API makes over the object it read. Same answers as
 * store_update with that object's version; on etcd it is one transaction (no read first), so a
 * stale read must still lose, and its event must be there when it returns. */
static void test_update_from(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *read1 = NULL, *read2 = NULL, *o = NULL, *stale = NULL, *same = NULL,
                            *cur = NULL, *gone = NULL, *norv = NULL;
        struct store_watch *w = NULL;
        struct store_event ev = { 0 };
        struct error *err = NULL;

        create_ok(f->s, "pods", "default", "web", "busybox"); /* 1 */
        assert_int_equal(store_watch_start(f->s, "pods", NULL, R(1), &w, NULL), 0);
        assert_int_equal(store_get(f->s, "pods", "default", "web", &read1, NULL), 0);
        o = json_deep_copy(read1);
        json_object_set_new(json_object_get(o, "metadata"), "labels", json_pack("{s:s}", "x", "1"));
        assert_int_equal(store_update_from(f->s, "pods", "default", "web", o, read1, NULL, NULL),
                         1);
        assert_rv(o, 2);
        /* published before the write returned, on either backend */
        assert_int_equal(store_watch_next(w, 0, &ev), 1);
        assert_int_equal(ev.type, STORE_EVENT_MODIFIED);
        assert_int_equal(ev.rv, R(2));
        assert_string_equal(json_path_string(ev.object, "metadata.labels.x"), "1");
        store_event_release(&ev);

        /* a second writer over the same (now stale) read loses: 409, obj as it was */
        stale = json_deep_copy(read1);
        json_object_set_new(json_object_get(stale, "metadata"), "labels",
                            json_pack("{s:s}", "y", "1"));
        assert_int_equal(
                store_update_from(f->s, "pods", "default", "web", stale, read1, NULL, &err),
                -ESTALE);
        assert_string_equal(err->message,
                            "Operation cannot be fulfilled on pods \"web\": the object has been "
                            "modified; please apply your changes to the latest version and try "
                            "again");
        err = error_free(err);
        assert_rv(stale, 1);
        /* unchanged from a stale read: still checked against the store, not taken as a no-op */
        same = json_deep_copy(read1);
        assert_int_equal(store_update_from(f->s, "pods", "default", "web", same, read1, NULL, NULL),
                         -ESTALE);
        /* unchanged from the current version: nothing written */
        assert_int_equal(store_get(f->s, "pods", "default", "web", &read2, NULL), 0);
        cur = json_deep_copy(read2);
        assert_int_equal(store_update_from(f->s, "pods", "default", "web", cur, read2, NULL, NULL),
                         0);
        assert_rv(cur, 2);
        assert_int_equal(store_current_rv(f->s), R(2));
        no_event(w);

        /* gone: 404 */
        assert_int_equal(store_delete(f->s, "pods", "default", "web", 0, NULL, NULL), 0); /* 3 */
        next_event(w, STORE_EVENT_DELETED, 3, "web");
        gone = json_deep_copy(read2);
        json_object_set_new(gone, "status", json_pack("{s:s}", "phase", "Running"));
        assert_int_equal(store_update_from(f->s, "pods", "default", "web", gone, read2, NULL, &err),
                         -ENOENT);
        assert_string_equal(err->message, "pods \"web\" not found");
        err = error_free(err);
        /* what it replaces must carry a version */
        norv = pod("default", "web", "i");
        assert_int_equal(store_update_from(f->s, "pods", "default", "web", gone, norv, NULL, &err),
                         -EINVAL);
        err = error_free(err);
        no_event(w);
        store_watch_stop(w);
}

/* K8S (GuaranteedUpdate): an update over a stale copy (as a cache may hold) loses with the
 * stored object in hand, and the retry over that object is written and ends in the right
 * object, with no read of its own. */
static void test_update_from_stale_retry(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *stale = NULL, *fresh = NULL, *o = NULL, *current = NULL, *got = NULL;

        create_ok(f->s, "pods", "default", "web", "busybox"); /* 1 */
        assert_int_equal(store_get(f->s, "pods", "default", "web", &stale, NULL), 0);
        fresh = json_deep_copy(stale);
        json_object_set_new(json_object_get(fresh, "metadata"), "labels",
                            json_pack("{s:s}", "x", "1"));
        assert_int_equal(store_update(f->s, "pods", "default", "web", fresh, R(1), NULL), 1);

        /* a label y over the stale copy: lost, with the current object (label x) returned */
        o = json_deep_copy(stale);
        json_object_set_new(json_object_get(o, "metadata"), "labels", json_pack("{s:s}", "y", "1"));
        assert_int_equal(
                store_update_from(f->s, "pods", "default", "web", o, stale, &current, NULL),
                -ESTALE);
        assert_non_null(current);
        assert_rv(current, 2);
        assert_string_equal(json_path_string(current, "metadata.labels.x"), "1");
        assert_int_equal(store_current_rv(f->s), R(2));

        /* the retry applies its change to what it lost to */
        json_decref(o);
        o = json_deep_copy(current);
        json_object_set_new(json_object_get(json_object_get(o, "metadata"), "labels"), "y",
                            json_string("1"));
        assert_int_equal(store_update_from(f->s, "pods", "default", "web", o, current, NULL, NULL),
                         1);
        assert_rv(o, 3);
        assert_int_equal(store_get(f->s, "pods", "default", "web", &got, NULL), 0);
        assert_string_equal(json_path_string(got, "metadata.labels.x"), "1");
        assert_string_equal(json_path_string(got, "metadata.labels.y"), "1");
}

/* --- cached reads --- */

/* store_get_cached and store_list_cached answer what store_get and store_list answer, and
 * every write of the store is in them when it returns (the index is primed on first use,
 * then kept by the watch history). */
static void test_cached_reads(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *a = NULL, *b = NULL, *got = NULL, *again = NULL, *all = NULL,
                            *in_a = NULL, *upd = NULL, *after = NULL, *none = NULL;
        struct error *err = NULL;
        uint64_t rv = 0;

        create_ok(f->s, "serviceaccounts", "b", "default", "i"); /* 1 */
        create_ok(f->s, "serviceaccounts", "a", "default", "i"); /* 2 */
        create_ok(f->s, "serviceaccounts", "a", "builder", "i"); /* 3 */
        create_ok(f->s, "namespaces", "", "a", "i");             /* 4 */
        assert_int_equal(store_get_cached(f->s, "serviceaccounts", "a", "default", &got, NULL), 0);
        assert_int_equal(store_get(f->s, "serviceaccounts", "a", "default", &a, NULL), 0);
        assert_true(json_equal(got, a));
        assert_rv(got, 2);
        /* the copy is the caller's: changing it changes no later answer */
        json_object_set_new(got, "spec", json_string("changed"));
        assert_int_equal(store_get_cached(f->s, "serviceaccounts", "a", "default", &again, NULL),
                         0);
        assert_true(json_equal(again, a));
        /* cluster-scoped, and absent */
        assert_int_equal(store_get_cached(f->s, "namespaces", NULL, "a", &b, NULL), 0);
        assert_rv(b, 4);
        assert_int_equal(store_get_cached(f->s, "namespaces", "", "zz", &none, &err), -ENOENT);
        assert_string_equal(err->message, "namespaces \"zz\" not found");
        err = error_free(err);

        /* lists: store_list's order, by namespace */
        assert_int_equal(store_list_cached(f->s, "serviceaccounts", NULL, &all, &rv, NULL), 0);
        assert_int_equal(json_array_size(all), 3);
        assert_string_equal(json_path_string(json_array_get(all, 0), "metadata.name"), "builder");
        assert_string_equal(json_path_string(json_array_get(all, 1), "metadata.name"), "default");
        assert_string_equal(json_path_string(json_array_get(all, 1), "metadata.namespace"), "a");
        assert_string_equal(json_path_string(json_array_get(all, 2), "metadata.namespace"), "b");
        assert_int_equal(rv, R(4));
        assert_int_equal(store_list_cached(f->s, "serviceaccounts", "a", &in_a, NULL, NULL), 0);
        assert_int_equal(json_array_size(in_a), 2);

        /* writes after the first cached read are in the next one */
        upd = json_deep_copy(a);
        json_object_set_new(upd, "secrets", json_pack("[{s:s}]", "name", "t"));
        assert_int_equal(store_update(f->s, "serviceaccounts", "a", "default", upd, R(2), NULL),
                         1); /* 5 */
        assert_int_equal(store_delete(f->s, "serviceaccounts", "a", "builder", 0, NULL, NULL),
                         0);                                     /* 6 */
        create_ok(f->s, "serviceaccounts", "c", "default", "i"); /* 7 */
        assert_int_equal(store_get_cached(f->s, "serviceaccounts", "a", "default", &after, NULL),
                         0);
        assert_rv(after, 5);
        assert_string_equal(
                json_path_string(json_array_get(json_object_get(after, "secrets"), 0), "name"),
                "t");
        assert_int_equal(store_get_cached(f->s, "serviceaccounts", "a", "builder", &none, NULL),
                         -ENOENT);
        json_decref(all);
        all = NULL;
        assert_int_equal(store_list_cached(f->s, "serviceaccounts", NULL, &all, &rv, NULL), 0);
        assert_int_equal(json_array_size(all), 3);
        assert_string_equal(json_path_string(json_array_get(all, 0), "metadata.namespace"), "a");
        assert_string_equal(json_path_string(json_array_get(all, 2), "metadata.namespace"), "c");
        assert_int_equal(rv, R(7));
        /* an empty resource lists empty */
        json_decref(all);
        all = NULL;
        assert_int_equal(store_list_cached(f->s, "limitranges", "a", &all, NULL, NULL), 0);
        assert_int_equal(json_array_size(all), 0);
}

/* --- no-op updates --- */

static void test_noop_update(void **state)
{
        struct fixture *f = *state;
        /* Each case: how the new object differs from the stored one, and whether that is a
         * write. */
        static const struct {
                const char *what;
                const char *rv; /* metadata.resourceVersion to put in the update, NULL: none */
                const char *label;
                bool reorder;
                int expect;
        } cases[] = {
                { "identical", "1", NULL, false, 0 },
                { "stale resourceVersion", "77", NULL, false, 0 },
                { "no resourceVersion", NULL, NULL, false, 0 },
                { "keys in another order", "1", NULL, true, 0 },
                { "a new label", "1", "x", false, 1 },
        };
        struct store_watch *w = NULL;

        create_ok(f->s, "pods", "default", "web", "busybox");
        assert_int_equal(store_watch_start(f->s, "pods", NULL, R(1), &w, NULL), 0);
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *stored = NULL, *o = NULL;
                uint64_t before = store_current_rv(f->s);

                assert_int_equal(store_get(f->s, "pods", "default", "web", &stored, NULL), 0);
                if (cases[i].reorder) {
                        const char *k;
                        json_t *v;

                        /* Same members, inserted last to first. */
                        o = json_object();
                        for (size_t j = json_object_size(stored); j-- > 0;) {
                                size_t n = 0;

                                json_object_foreach(stored, k, v) {
                                        if (n++ == j)
                                                json_object_set(o, k, v);
                                }
                        }
                } else {
                        o = json_deep_copy(stored);
                }
                if (cases[i].rv)
                        json_object_set_new(json_object_get(o, "metadata"), "resourceVersion",
                                            json_string(cases[i].rv));
                else
                        json_object_del(json_object_get(o, "metadata"), "resourceVersion");
                if (cases[i].label)
                        json_object_set_new(json_object_get(o, "metadata"), "labels",
                                            json_pack("{s:s}", "l", cases[i].label));

                assert_int_equal(store_update(f->s, "pods", "default", "web", o, 0, NULL),
                                 cases[i].expect);
                if (cases[i].expect == 0) {
                        /* K8S: no-op update keeps the resourceVersion and emits nothing. */
                        assert_int_equal(store_current_rv(f->s), before);
                        assert_string_equal(rv_of(o), rv_of(stored));
                        no_event(w);
                } else {
                        assert_int_equal(store_current_rv(f->s), before + 1);
                        next_event(w, STORE_EVENT_MODIFIED, before + 1 - R(0), "web");
                }
        }
        store_watch_stop(w);
}

/* --- list --- */

static void test_list(void **state)
{
        struct fixture *f = *state;
        static const char *const creates[][2] = {
                { "b", "z" }, { "a", "y" }, { "b", "a" }, { "a", "b" }, { "a-b", "c" },
        };
        static const char *const all_order[][2] = {
                { "a", "b" }, { "a", "y" }, { "a-b", "c" }, { "b", "a" }, { "b", "z" },
        };
        cleanup_json json_t *all = NULL, *in_a = NULL, *none = NULL;
        uint64_t rv = 0;

        for (size_t i = 0; i < ARRAY_SIZE(creates); i++)
                create_ok(f->s, "pods", creates[i][0], creates[i][1], "i");
        create_ok(f->s, "configmaps", "a", "cm", "i");

        assert_int_equal(store_list(f->s, "pods", NULL, &all, &rv, NULL), 0);
        assert_int_equal(rv, R(6));
        assert_int_equal(json_array_size(all), ARRAY_SIZE(all_order));
        for (size_t i = 0; i < ARRAY_SIZE(all_order); i++) {
                json_t *item = json_array_get(all, i);

                assert_string_equal(json_path_string(item, "metadata.namespace"), all_order[i][0]);
                assert_string_equal(json_path_string(item, "metadata.name"), all_order[i][1]);
        }

        assert_int_equal(store_list(f->s, "pods", "a", &in_a, &rv, NULL), 0);
        assert_int_equal(json_array_size(in_a), 2);
        assert_string_equal(json_path_string(json_array_get(in_a, 0), "metadata.name"), "b");
        assert_string_equal(json_path_string(json_array_get(in_a, 1), "metadata.name"), "y");
        assert_rv(json_array_get(in_a, 0), 4);

        assert_int_equal(store_list(f->s, "secrets", NULL, &none, &rv, NULL), 0);
        assert_int_equal(json_array_size(none), 0);
        assert_int_equal(rv, R(6));
}

/* --- watch --- */

static void test_watch_from_zero(void **state)
{
        struct fixture *f = *state;
        struct store_watch *w = NULL, *w_other = NULL;
        cleanup_json json_t *o = NULL;

        create_ok(f->s, "pods", "default", "b", "i");       /* 1 */
        create_ok(f->s, "pods", "default", "a", "i");       /* 2 */
        create_ok(f->s, "pods", "other", "c", "i");         /* 3 */
        create_ok(f->s, "configmaps", "default", "d", "i"); /* 4 */

        /* K8S: resourceVersion=0 → a synthetic ADDED per current object, then live. */
        assert_int_equal(store_watch_start(f->s, "pods", "default", 0, &w, NULL), 0);
        assert_int_equal(store_watch_start(f->s, "pods", "other", 0, &w_other, NULL), 0);
        next_event(w, STORE_EVENT_ADDED, 2, "a");
        next_event(w, STORE_EVENT_ADDED, 1, "b");
        no_event(w);
        next_event(w_other, STORE_EVENT_ADDED, 3, "c");
        no_event(w_other);

        create_ok(f->s, "pods", "default", "e", "i");       /* 5 */
        create_ok(f->s, "pods", "other", "f", "i");         /* 6: other namespace */
        create_ok(f->s, "configmaps", "default", "g", "i"); /* 7: other resource */
        assert_int_equal(store_get(f->s, "pods", "default", "a", &o, NULL), 0);
        json_object_set_new(o, "status", json_pack("{s:s}", "phase", "Running"));
        assert_int_equal(store_update(f->s, "pods", "default", "a", o, 0, NULL), 1);    /* 8 */
        assert_int_equal(store_delete(f->s, "pods", "default", "b", 0, NULL, NULL), 0); /* 9 */

        next_event(w, STORE_EVENT_ADDED, 5, "e");
        next_event(w, STORE_EVENT_MODIFIED, 8, "a");
        next_event(w, STORE_EVENT_DELETED, 9, "b");
        no_event(w);
        next_event(w_other, STORE_EVENT_ADDED, 6, "f");
        no_event(w_other);
        store_watch_stop(w);
        store_watch_stop(w_other);
}

static void test_watch_all_namespaces(void **state)
{
        struct fixture *f = *state;
        struct store_watch *w = NULL;

        create_ok(f->s, "pods", "b", "x", "i"); /* 1 */
        create_ok(f->s, "pods", "a", "y", "i"); /* 2 */
        assert_int_equal(store_watch_start(f->s, "pods", NULL, 0, &w, NULL), 0);
        next_event(w, STORE_EVENT_ADDED, 2, "y");
        next_event(w, STORE_EVENT_ADDED, 1, "x");
        create_ok(f->s, "pods", "c", "z", "i");   /* 3 */
        create_ok(f->s, "nodes", NULL, "n", "i"); /* 4 */
        next_event(w, STORE_EVENT_ADDED, 3, "z");
        no_event(w);
        store_watch_stop(w);
}

static void test_watch_replay(void **state)
{
        struct fixture *f = *state;
        struct store_watch *w = NULL, *w_now = NULL;
        cleanup_json json_t *o = NULL;

        create_ok(f->s, "pods", "default", "a", "i"); /* 1 */
        create_ok(f->s, "pods", "default", "b", "i"); /* 2 */
        assert_int_equal(store_get(f->s, "pods", "default", "a", &o, NULL), 0);
        json_object_set_new(o, "status", json_pack("{s:s}", "phase", "Running"));
        assert_int_equal(store_update(f->s, "pods", "default", "a", o, R(1), NULL), 1);    /* 3 */
        assert_int_equal(store_delete(f->s, "pods", "default", "b", R(2), NULL, NULL), 0); /* 4 */

        /* K8S: resourceVersion=N → every change after N, then live. */
        assert_int_equal(store_watch_start(f->s, "pods", "default", R(2), &w, NULL), 0);
        next_event(w, STORE_EVENT_MODIFIED, 3, "a");
        next_event(w, STORE_EVENT_DELETED, 4, "b");
        no_event(w);

        /* From the current version: nothing old, then live. */
        assert_int_equal(store_watch_start(f->s, "pods", "default", R(4), &w_now, NULL), 0);
        no_event(w_now);
        create_ok(f->s, "pods", "default", "c", "i"); /* 5 */
        next_event(w, STORE_EVENT_ADDED, 5, "c");
        next_event(w_now, STORE_EVENT_ADDED, 5, "c");
        store_watch_stop(w);
        store_watch_stop(w_now);

        /* From a version ahead of the store: only what comes after it. */
        assert_int_equal(store_watch_start(f->s, "pods", "default", R(6), &w, NULL), 0);
        create_ok(f->s, "pods", "default", "d", "i"); /* 6: not after 6 */
        create_ok(f->s, "pods", "default", "e", "i"); /* 7 */
        next_event(w, STORE_EVENT_ADDED, 7, "e");
        store_watch_stop(w);
}

static void test_watch_too_old(void **state)
{
        struct fixture *f = *state;
        const struct store_options o = { .watch_window = 4 };
        struct store_watch *w = NULL;
        struct error *err = NULL;
        char name[16];

        reopen(f, &o);
        for (int i = 1; i <= 10; i++) {
                (void) snprintf(name, sizeof(name), "p%d", i);
                create_ok(f->s, "pods", "default", name, "i");
        }
        /* The window holds 7..10, so a watch may start from 6 or later. */
        /* K8S: too old → 410 Expired "too old resource version: N (M)". */
        assert_int_equal(store_watch_start(f->s, "pods", NULL, R(1), &w, &err), -ERANGE);
        assert_message(err, "too old resource version: %s (%s)", 1, 6);
        err = error_free(err);
        assert_int_equal(store_watch_start(f->s, "pods", NULL, R(5), &w, NULL), -ERANGE);
        assert_null(w);

        assert_int_equal(store_watch_start(f->s, "pods", NULL, R(6), &w, NULL), 0);
        for (int i = 7; i <= 10; i++) {
                (void) snprintf(name, sizeof(name), "p%d", i);
                next_event(w, STORE_EVENT_ADDED, (uint64_t) i, name);
        }
        no_event(w);
        w = store_watch_stop(w);

        /* From 0 never expires: the list covers what the window lost. */
        assert_int_equal(store_watch_start(f->s, "pods", NULL, 0, &w, NULL), 0);
        for (int i = 1; i <= 10; i++) {
                struct store_event ev = { 0 };

                assert_int_equal(store_watch_next(w, 1000, &ev), 1);
                assert_int_equal(ev.type, STORE_EVENT_ADDED);
                store_event_release(&ev);
        }
        no_event(w);
        store_watch_stop(w);
}

static void test_deleted_event(void **state)
{
        struct fixture *f = *state;
        struct store_watch *w = NULL;
        cleanup_json json_t *o = NULL, *last = NULL;
        struct store_event ev = { 0 };

        create_ok(f->s, "pods", "default", "web", "busybox"); /* 1 */
        assert_int_equal(store_get(f->s, "pods", "default", "web", &o, NULL), 0);
        json_object_set_new(json_object_get(o, "metadata"), "labels",
                            json_pack("{s:s}", "final", "yes"));
        assert_int_equal(store_update(f->s, "pods", "default", "web", o, 0, NULL), 1); /* 2 */
        assert_int_equal(store_watch_start(f->s, "pods", "default", R(2), &w, NULL), 0);
        assert_int_equal(store_delete(f->s, "pods", "default", "web", R(2), &last, NULL), 0);

        /* K8S: DELETED carries the last state stamped with the deletion's resourceVersion. */
        assert_int_equal(store_watch_next(w, 1000, &ev), 1);
        assert_int_equal(ev.type, STORE_EVENT_DELETED);
        assert_int_equal(ev.rv, R(3));
        assert_rv(ev.object, 3);
        assert_string_equal(json_path_string(ev.object, "metadata.labels.final"), "yes");
        assert_true(json_equal(ev.object, last));
        store_event_release(&ev);
        assert_null(ev.object);
        store_watch_stop(w);
}

static void test_watch_timeout(void **state)
{
        struct fixture *f = *state;
        struct store_watch *w = NULL;
        struct store_event ev = { 0 };

        assert_int_equal(store_watch_start(f->s, "pods", NULL, 0, &w, NULL), 0);
        assert_int_equal(store_watch_next(w, 20, &ev), 0);
        assert_null(ev.object);
        store_watch_stop(w);
}

/* A stopping server ends its watches (store_end_watches); reads and writes still work. */
static void test_end_watches(void **state)
{
        struct fixture *f = *state;
        struct store_watch *w = NULL, *late = NULL;
        struct store_event ev = { 0 };
        cleanup_json json_t *got = NULL;

        assert_int_equal(store_watch_start(f->s, "pods", NULL, 0, &w, NULL), 0);
        store_end_watches(f->s);
        assert_int_equal(store_watch_next(w, 5000, &ev), -ECANCELED);
        assert_true(store_watch_start(f->s, "pods", NULL, 0, &late, NULL) < 0);
        assert_null(late);
        create_ok(f->s, "pods", "default", "after", "i");
        assert_int_equal(store_get(f->s, "pods", "default", "after", &got, NULL), 0);
        store_watch_stop(w);
}

static void test_slow_watcher_cancelled(void **state)
{
        struct fixture *f = *state;
        const struct store_options o = { .watch_queue = 4 };
        struct store_watch *slow = NULL, *other = NULL, *keeping_up = NULL;
        struct store_event ev = { 0 };
        char name[16];

        reopen(f, &o);
        create_ok(f->s, "pods", "default", "old1", "i");
        create_ok(f->s, "pods", "default", "old2", "i");
        /* The synthetic ADDEDs of a watch from 0 do not count against the queue. */
        assert_int_equal(store_watch_start(f->s, "pods", NULL, 0, &slow, NULL), 0);
        assert_int_equal(store_watch_start(f->s, "configmaps", NULL, 0, &other, NULL), 0);
        assert_int_equal(store_watch_start(f->s, "pods", NULL, 0, &keeping_up, NULL), 0);
        next_event(keeping_up, STORE_EVENT_ADDED, 1, "old1");
        next_event(keeping_up, STORE_EVENT_ADDED, 2, "old2");
        for (int i = 0; i < 10; i++) {
                (void) snprintf(name, sizeof(name), "p%d", i);
                /* Writers never wait for the slow reader. */
                create_ok(f->s, "pods", "default", name, "i");
                next_event(keeping_up, STORE_EVENT_ADDED, (uint64_t) i + 3, name);
        }
        assert_int_equal(store_watch_next(slow, 0, &ev), -ECANCELED);
        assert_int_equal(store_watch_next(slow, 1000, &ev), -ECANCELED);
        assert_null(ev.object);
        /* A watcher of another resource saw nothing to fall behind on. */
        assert_int_equal(store_watch_next(other, 0, &ev), 0);
        store_watch_stop(slow);
        store_watch_stop(other);
        store_watch_stop(keeping_up);
}

struct waiter {
        struct store_watch *w;
        int r;
};

static void *wait_forever(void *p)
{
        struct waiter *wt = p;
        struct store_event ev = { 0 };

        wt->r = store_watch_next(wt->w, -1, &ev);
        store_event_release(&ev);
        return NULL;
}

static void test_close_wakes_watchers(void **state)
{
        struct fixture *f = *state;
        struct waiter wt[3] = { 0 };
        pthread_t th[3];
        struct store_event ev = { 0 };

        for (size_t i = 0; i < ARRAY_SIZE(wt); i++) {
                assert_int_equal(
                        store_watch_start(f->s, i ? "pods" : "nodes", NULL, 0, &wt[i].w, NULL), 0);
                assert_int_equal(pthread_create(&th[i], NULL, wait_forever, &wt[i]), 0);
        }
        usleep(20000); /* let them block; the outcome is the same if they have not yet */
        f->s = store_close(f->s);
        for (size_t i = 0; i < ARRAY_SIZE(wt); i++) {
                assert_int_equal(pthread_join(th[i], NULL), 0);
                assert_int_equal(wt[i].r, -ECANCELED);
                /* Still a valid handle after close, and still cancelled. */
                assert_int_equal(store_watch_next(wt[i].w, 0, &ev), -ECANCELED);
                store_watch_stop(wt[i].w);
        }
        assert_int_equal(open_with(f, NULL), 0);
}

/* --- concurrency --- */

#define WRITERS           4
#define WRITES_PER_THREAD 25

struct writer {
        struct store *s;
        int id;
        uint64_t rvs[WRITES_PER_THREAD * 2];
        int failures;
};

static void *write_many(void *p)
{
        struct writer *wr = p;

        for (int i = 0; i < WRITES_PER_THREAD; i++) {
                char name[32];
                json_t *o;

                (void) snprintf(name, sizeof(name), "w%d-%d", wr->id, i);
                o = pod("default", name, "v1");
                if (store_create(wr->s, "pods", "default", name, o, NULL) != 0 ||
                    store_rv_parse(rv_of(o), &wr->rvs[2 * i]) < 0)
                        wr->failures++;
                json_object_set_new(o, "status", json_pack("{s:s}", "phase", "Running"));
                if (store_update(wr->s, "pods", "default", name, o, wr->rvs[2 * i], NULL) != 1 ||
                    store_rv_parse(rv_of(o), &wr->rvs[2 * i + 1]) < 0)
                        wr->failures++;
                json_decref(o);
        }
        return NULL;
}

static void test_concurrent_writers(void **state)
{
        struct fixture *f = *state;
        const struct store_options o = { .watch_queue = 4096 };
        struct writer wr[WRITERS];
        pthread_t th[WRITERS];
        struct store_watch *w = NULL;
        bool seen[WRITERS * WRITES_PER_THREAD * 2 + 1] = { 0 };
        uint64_t prev = 0;
        cleanup_json json_t *items = NULL;
        uint64_t list_rv = 0;

        reopen(f, &o);
        assert_int_equal(store_watch_start(f->s, "pods", NULL, 0, &w, NULL), 0);
        for (int i = 0; i < WRITERS; i++) {
                wr[i] = (struct writer){ .s = f->s, .id = i };
                assert_int_equal(pthread_create(&th[i], NULL, write_many, &wr[i]), 0);
        }
        for (int i = 0; i < WRITERS; i++) {
                assert_int_equal(pthread_join(th[i], NULL), 0);
                assert_int_equal(wr[i].failures, 0);
                /* Each thread sees its own writes in increasing versions. */
                for (int j = 1; j < WRITES_PER_THREAD * 2; j++)
                        assert_true(wr[i].rvs[j] > wr[i].rvs[j - 1]);
                for (int j = 0; j < WRITES_PER_THREAD * 2; j++) {
                        uint64_t k = wr[i].rvs[j] - R(0);

                        assert_true(k >= 1 && k < ARRAY_SIZE(seen));
                        assert_false(seen[k]); /* unique across threads */
                        seen[k] = true;
                }
        }
        assert_int_equal(store_current_rv(f->s), R(WRITERS * WRITES_PER_THREAD * 2));

        /* The watch saw every write once, in strictly increasing order. */
        for (int i = 0; i < WRITERS * WRITES_PER_THREAD * 2; i++) {
                struct store_event ev = { 0 };

                assert_int_equal(store_watch_next(w, 1000, &ev), 1);
                assert_true(ev.rv > prev);
                prev = ev.rv;
                store_event_release(&ev);
        }
        assert_int_equal(prev, R(WRITERS * WRITES_PER_THREAD * 2));
        no_event(w);
        store_watch_stop(w);

        assert_int_equal(store_list(f->s, "pods", "default", &items, &list_rv, NULL), 0);
        assert_int_equal(json_array_size(items), WRITERS * WRITES_PER_THREAD);
        assert_int_equal(list_rv, R(WRITERS * WRITES_PER_THREAD * 2));
}

/* Writers that succeed and writers that fail, at once (SQLite commits the writes that queue
 * together as one transaction): a refused write (a name taken, a stale version) takes nobody
 * else's write with it, a write that changes nothing changes nothing, and every acknowledged
 * write is there after a reopen, each seen once by the watch, in order, without a gap. */
#define MIXED_THREADS 6
#define MIXED_ROUNDS  20

struct mixed {
        struct store *s;
        int id;
        int created, refused, unchanged;
};

static void *write_mixed(void *p)
{
        struct mixed *m = p;

        for (int i = 0; i < MIXED_ROUNDS; i++) {
                char name[32];
                cleanup_json json_t *o = NULL, *taken = pod("default", "taken", "x");
                cleanup_json json_t *stale = pod("default", "taken", "y");
                int r;

                (void) snprintf(name, sizeof(name), "m%d-%d", m->id, i);
                o = pod("default", name, "v1");
                if (store_create(m->s, "pods", "default", name, o, NULL) == 0)
                        m->created++;
                if (store_create(m->s, "pods", "default", "taken", taken, NULL) == -EEXIST)
                        m->refused++;
                /* a version "taken" never had: a conflict */
                if (store_update(m->s, "pods", "default", "taken", stale, R(1000000), NULL) ==
                    -ESTALE)
                        m->refused++;
                /* the object as written: nothing to write */
                r = store_update(m->s, "pods", "default", name, o, 0, NULL);
                if (r == 0)
                        m->unchanged++;
        }
        return NULL;
}

static void test_mixed_concurrent_writers(void **state)
{
        struct fixture *f = *state;
        const struct store_options o = { .watch_queue = 4096 };
        struct mixed m[MIXED_THREADS];
        pthread_t th[MIXED_THREADS];
        struct store_watch *w = NULL;
        cleanup_json json_t *items = NULL;
        uint64_t list_rv = 0, prev;
        const int writes = MIXED_THREADS * MIXED_ROUNDS;

        reopen(f, &o);
        create_ok(f->s, "pods", "default", "taken", "x"); /* R(1) */
        assert_int_equal(store_watch_start(f->s, "pods", NULL, R(1), &w, NULL), 0);
        for (int i = 0; i < MIXED_THREADS; i++) {
                m[i] = (struct mixed){ .s = f->s, .id = i };
                assert_int_equal(pthread_create(&th[i], NULL, write_mixed, &m[i]), 0);
        }
        for (int i = 0; i < MIXED_THREADS; i++) {
                assert_int_equal(pthread_join(th[i], NULL), 0);
                assert_int_equal(m[i].created, MIXED_ROUNDS);
                assert_int_equal(m[i].refused, 2 * MIXED_ROUNDS);
                assert_int_equal(m[i].unchanged, MIXED_ROUNDS);
        }
        assert_int_equal(store_current_rv(f->s), R(1 + writes));
        prev = R(1);
        for (int i = 0; i < writes; i++) {
                struct store_event ev = { 0 };

                assert_int_equal(store_watch_next(w, 1000, &ev), 1);
                assert_int_equal(ev.type, STORE_EVENT_ADDED);
                assert_int_equal(ev.rv, prev + 1);
                prev = ev.rv;
                store_event_release(&ev);
        }
        no_event(w);
        store_watch_stop(w);

        reopen(f, &o);
        assert_int_equal(store_current_rv(f->s), R(1 + writes));
        assert_int_equal(store_list(f->s, "pods", "default", &items, &list_rv, NULL), 0);
        assert_int_equal(json_array_size(items), 1 + writes);
        assert_int_equal(list_rv, R(1 + writes));
}

struct creator {
        struct store *s;
        int n;
};

static void *create_n(void *p)
{
        struct creator *c = p;

        for (int i = 0; i < c->n; i++) {
                char name[32];
                json_t *o;

                (void) snprintf(name, sizeof(name), "c%03d", i);
                o = pod("default", name, "i");
                (void) store_create(c->s, "pods", "default", name, o, NULL);
                json_decref(o);
        }
        return NULL;
}

/* A watch from 0 started while writes land sees each object exactly once: in the synthetic
 * list or as a live event, never both, never neither. */
static void test_watch_from_zero_during_writes(void **state)
{
        struct fixture *f = *state;
        struct creator c = { .s = f->s, .n = 60 };
        pthread_t th;
        struct store_watch *w[6] = { 0 };
        int count[ARRAY_SIZE(w)][60];

        memset(count, 0, sizeof(count));
        assert_int_equal(pthread_create(&th, NULL, create_n, &c), 0);
        for (size_t i = 0; i < ARRAY_SIZE(w); i++) {
                assert_int_equal(store_watch_start(f->s, "pods", "default", 0, &w[i], NULL), 0);
                usleep(3000);
        }
        assert_int_equal(pthread_join(th, NULL), 0);
        assert_int_equal(store_current_rv(f->s), R(60));
        for (size_t i = 0; i < ARRAY_SIZE(w); i++) {
                struct store_event ev = { 0 };

                while (store_watch_next(w[i], 0, &ev) == 1) {
                        int k = atoi(json_path_string(ev.object, "metadata.name") + 1);

                        assert_int_equal(ev.type, STORE_EVENT_ADDED);
                        count[i][k]++;
                        store_event_release(&ev);
                }
                for (int k = 0; k < 60; k++)
                        assert_int_equal(count[i][k], 1);
                store_watch_stop(w[i]);
        }
}

/* --- persistence --- */

static void test_reopen_persists(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *o = pod("default", "web", "busybox");
        cleanup_json json_t *got = NULL, *n = pod("default", "next", "busybox");
        struct store_watch *w = NULL;
        struct error *err = NULL;

        assert_int_equal(store_create(f->s, "pods", "default", "web", o, NULL), 0);
        create_ok(f->s, "pods", "default", "gone", "i");
        assert_int_equal(store_delete(f->s, "pods", "default", "gone", 0, NULL, NULL), 0);
        assert_int_equal(store_current_rv(f->s), R(3));

        reopen(f, NULL);
        assert_int_equal(store_current_rv(f->s), R(3));
        assert_int_equal(store_get(f->s, "pods", "default", "web", &got, NULL), 0);
        assert_true(json_equal(got, o));
        assert_int_equal(store_get(f->s, "pods", "default", "gone", &got, NULL), -ENOENT);

        /* After a restart the window is empty at the current version. */
        assert_int_equal(store_watch_start(f->s, "pods", NULL, R(2), &w, &err), -ERANGE);
        assert_message(err, "too old resource version: %s (%s)", 2, 3);
        error_free(err);
        assert_int_equal(store_watch_start(f->s, "pods", NULL, R(3), &w, NULL), 0);

        /* The counter continues where it stopped. */
        assert_int_equal(store_create(f->s, "pods", "default", "next", n, NULL), 0);
        assert_rv(n, 4);
        next_event(w, STORE_EVENT_ADDED, 4, "next");
        store_watch_stop(w);
}

#ifdef STORE_TEST_ETCD
/* --- etcd only --- */

/* The kv etcd holds at key (a new reference), or NULL. */
static json_t *raw_kv(const char *key)
{
        cleanup_free char *k = base64_encode(key, strlen(key));
        cleanup_free char *body = xasprintf("{\"key\":\"%s\"}", k);
        cleanup_json json_t *ans = etcd_raw("/v3/kv/range", body);

        return json_incref(json_array_get(json_object_get(ans, "kvs"), 0));
}

static json_t *raw_value(const json_t *kv)
{
        char *v = NULL;
        size_t n = 0;
        const char *s = json_string_value(json_object_get(kv, "value"));
        json_t *o;

        assert_non_null(s);
        assert_int_equal(base64_decode(s, strlen(s), &v, &n, NULL), 0);
        o = json_loadb(v, n, 0, NULL);
        free(v);
        return o;
}

/* K8S: /registry/<resource>/<namespace>/<name>, cluster-scoped without the namespace; the value
 * is the object's JSON, its resourceVersion the key's mod_revision. */
static void test_etcd_keys(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *kv = NULL, *node = NULL, *v = NULL;
        json_t *bad = pod("default", "x", "i");

        create_ok(f->s, "pods", "default", "web", "busybox"); /* 1 */
        create_ok(f->s, "nodes", NULL, "n1", "i");            /* 2 */
        kv = raw_kv("/registry/pods/default/web");
        node = raw_kv("/registry/nodes/n1");
        assert_non_null(kv);
        assert_non_null(node);
        assert_int_equal(strtoull(json_string_value(json_object_get(kv, "mod_revision")), NULL, 10),
                         R(1));
        v = raw_value(kv);
        assert_string_equal(json_path_string(v, "metadata.name"), "web");
        assert_null(json_path(v, "metadata.resourceVersion"));
        /* no key part may hold a '/': it would name another key */
        assert_int_equal(store_create(f->s, "pods", "a/b", "x", bad, NULL), -EINVAL);
        assert_int_equal(store_get(f->s, "pods", "default", "a/b", &kv, NULL), -EINVAL);
        json_decref(bad);
}

/* A list larger than a page comes back whole, in order, at one revision. */
static void test_etcd_list_pages(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *all = NULL, *in_b = NULL;
        uint64_t rv = 0;
        char name[16];

        for (int i = 0; i < 520; i++) {
                (void) snprintf(name, sizeof(name), "p%03d", i);
                create_ok(f->s, "pods", i % 2 ? "b" : "a-b", name, "i");
        }
        create_ok(f->s, "pods", "a", "z", "i"); /* 521: "a" sorts before "a-b" */
        assert_int_equal(store_list(f->s, "pods", NULL, &all, &rv, NULL), 0);
        assert_int_equal(rv, R(521));
        assert_int_equal(json_array_size(all), 521);
        assert_string_equal(json_path_string(json_array_get(all, 0), "metadata.namespace"), "a");
        for (size_t i = 2; i < json_array_size(all); i++) {
                const json_t *p = json_array_get(all, i - 1), *q = json_array_get(all, i);
                int c = strcmp(json_path_string(p, "metadata.namespace"),
                               json_path_string(q, "metadata.namespace"));

                assert_true(c < 0 || (c == 0 && strcmp(json_path_string(p, "metadata.name"),
                                                       json_path_string(q, "metadata.name")) < 0));
        }
        assert_int_equal(store_list(f->s, "pods", "b", &in_b, &rv, NULL), 0);
        assert_int_equal(json_array_size(in_b), 260);
}

/* Two stores on one etcd (two apiservers): what one writes, the other's watches see. */
static void test_etcd_two_stores(void **state)
{
        struct fixture *f = *state;
        const struct store_etcd_options eo = { .endpoints = etcd_endpoint() };
        struct store *other = NULL;
        struct store_watch *w = NULL;
        cleanup_json json_t *got = NULL, *o = pod("default", "web", "i");

        assert_int_equal(store_open_etcd(&eo, NULL, &other, NULL), 0);
        assert_int_equal(store_watch_start(other, "pods", "default", R(0), &w, NULL), 0);
        create_ok(f->s, "pods", "default", "web", "i"); /* 1 */
        next_event(w, STORE_EVENT_ADDED, 1, "web");
        assert_int_equal(store_get(other, "pods", "default", "web", &got, NULL), 0);
        assert_rv(got, 1);
        /* the other's write conflicts with a stale version from this one */
        assert_int_equal(store_update(other, "pods", "default", "web", got, 0, NULL), 0);
        json_object_set_new(got, "status", json_pack("{s:s}", "phase", "Running"));
        assert_int_equal(store_update(other, "pods", "default", "web", got, R(1), NULL), 1);
        json_object_set_new(o, "status", json_pack("{s:s}", "phase", "Failed"));
        assert_int_equal(store_update(f->s, "pods", "default", "web", o, R(1), NULL), -ESTALE);
        next_event(w, STORE_EVENT_MODIFIED, 2, "web");
        assert_int_equal(store_delete(f->s, "pods", "default", "web", 0, NULL, NULL), 0);
        /* a delete made elsewhere carries the state it removed (the other store's feed reads
         * it at the revision before the delete): the other's own write, at the delete's rv */
        {
                struct store_event ev = { 0 };
                char buf[24];

                assert_int_equal(store_watch_next(w, 5000, &ev), 1);
                assert_int_equal(ev.type, STORE_EVENT_DELETED);
                assert_int_equal(ev.rv, R(3));
                assert_string_equal(json_path_string(ev.object, "status.phase"), "Running");
                (void) snprintf(buf, sizeof(buf), "%llu", (unsigned long long) R(3));
                assert_string_equal(rv_of(ev.object), buf);
                store_event_release(&ev);
        }
        store_watch_stop(w);

        /* Writes through both stores, interleaved: each store publishes its own writes
         * directly when nothing came between, the rest through its etcd watch; both stores'
         * watchers see every write once, in revision order. */
        {
                struct store_watch *wa = NULL, *wb = NULL;
                char name[16];

                assert_int_equal(store_watch_start(f->s, "configmaps", NULL, R(3), &wa, NULL), 0);
                assert_int_equal(store_watch_start(other, "configmaps", NULL, R(3), &wb, NULL), 0);
                for (int i = 0; i < 20; i++) {
                        (void) snprintf(name, sizeof(name), "c%d", i);
                        create_ok(i % 3 ? f->s : other, "configmaps", "default", name, "i");
                }
                for (int i = 0; i < 20; i++) {
                        (void) snprintf(name, sizeof(name), "c%d", i);
                        next_event(wa, STORE_EVENT_ADDED, 4 + (uint64_t) i, name);
                        next_event(wb, STORE_EVENT_ADDED, 4 + (uint64_t) i, name);
                }
                no_event(wa);
                no_event(wb);
                store_watch_stop(wa);
                store_watch_stop(wb);
        }
        store_close(other);
}

/* Writers of two stores on one etcd at once, with a client writing outside /registry/ among
 * them: each store publishes its own writes itself (its feed waits to learn whose an event is
 * rather than decode it) and the rest from its watch; both stores' watchers see every write once,
 * in revision order, each as its writer wrote it. */
# define RACERS      4
# define RACE_WRITES 30

struct racer {
        struct store *s;
        int id;
        uint64_t rvs[RACE_WRITES];
        int failures;
};

static void *race_writes(void *p)
{
        struct racer *rc = p;
        char name[16], image[16];
        cleanup_json json_t *o = NULL;

        (void) snprintf(name, sizeof(name), "r%d", rc->id);
        for (int i = 0; i < RACE_WRITES; i++) {
                cleanup_json json_t *last = NULL;
                int r;

                (void) snprintf(image, sizeof(image), "v%d", i);
                if (i == 0) {
                        o = pod("default", name, image);
                        r = store_create(rc->s, "pods", "default", name, o, NULL);
                } else if (i < RACE_WRITES - 1) {
                        json_array_set_new(json_path(o, "spec.containers"), 0,
                                           json_pack("{s:s, s:s}", "name", "c", "image", image));
                        r = store_update(rc->s, "pods", "default", name, o, 0, NULL) == 1 ? 0 : -1;
                } else {
                        r = store_delete(rc->s, "pods", "default", name, 0, &last, NULL);
                        json_decref(o);
                        o = json_incref(last);
                }
                if (r != 0 || store_rv_parse(rv_of(o), &rc->rvs[i]) < 0)
                        rc->failures++;
        }
        return NULL;
}

static bool racing;

static void *race_outside_registry(void *p)
{
        unsigned *puts = p;

        /* key "/other/k", value "x" */
        while (__atomic_load_n(&racing, __ATOMIC_ACQUIRE)) {
                json_decref(
                        etcd_raw("/v3/kv/put", "{\"key\":\"L290aGVyL2s=\",\"value\":\"eA==\"}"));
                (*puts)++;
        }
        return NULL;
}

/* The event w gives next is the write racers made at its revision. */
static void next_race_event(struct store_watch *w, const struct racer *rc, uint64_t *prev)
{
        struct store_event ev = { 0 };
        char name[16], image[16];

        assert_int_equal(store_watch_next(w, 5000, &ev), 1);
        assert_true(ev.rv > *prev);
        *prev = ev.rv;
        for (int t = 0; t < RACERS; t++)
                for (int i = 0; i < RACE_WRITES; i++) {
                        if (rc[t].rvs[i] != ev.rv)
                                continue;
                        (void) snprintf(name, sizeof(name), "r%d", t);
                        (void) snprintf(image, sizeof(image), "v%d",
                                        i < RACE_WRITES - 1 ? i : i - 1);
                        assert_string_equal(json_path_string(ev.object, "metadata.name"), name);
                        assert_string_equal(
                                json_string_value(json_object_get(
                                        json_array_get(json_path(ev.object, "spec.containers"), 0),
                                        "image")),
                                image);
                        assert_int_equal(ev.type, i == 0                ? STORE_EVENT_ADDED
                                                  : i < RACE_WRITES - 1 ? STORE_EVENT_MODIFIED
                                                                        : STORE_EVENT_DELETED);
                        store_event_release(&ev);
                        return;
                }
        fail_msg("an event at %" PRIu64 " that no racer wrote", ev.rv);
}

static void test_etcd_racing_stores(void **state)
{
        struct fixture *f = *state;
        const struct store_etcd_options eo = { .endpoints = etcd_endpoint() };
        const struct store_options o = { .watch_queue = 4096 };
        struct store *other = NULL;
        struct store_watch *wa = NULL, *wb = NULL;
        struct racer rc[RACERS];
        pthread_t th[RACERS], outside;
        unsigned puts = 0;
        uint64_t prev_a = 0, prev_b = 0;

        reopen(f, &o);
        assert_int_equal(store_open_etcd(&eo, &o, &other, NULL), 0);
        assert_int_equal(store_watch_start(f->s, "pods", NULL, store_current_rv(f->s), &wa, NULL),
                         0);
        assert_int_equal(store_watch_start(other, "pods", NULL, store_current_rv(f->s), &wb, NULL),
                         0);
        racing = true;
        assert_int_equal(pthread_create(&outside, NULL, race_outside_registry, &puts), 0);
        for (int i = 0; i < RACERS; i++) {
                rc[i] = (struct racer){ .s = i % 2 ? other : f->s, .id = i };
                assert_int_equal(pthread_create(&th[i], NULL, race_writes, &rc[i]), 0);
        }
        for (int i = 0; i < RACERS; i++) {
                assert_int_equal(pthread_join(th[i], NULL), 0);
                assert_int_equal(rc[i].failures, 0);
        }
        __atomic_store_n(&racing, false, __ATOMIC_RELEASE);
        assert_int_equal(pthread_join(outside, NULL), 0);
        assert_true(puts > 0);
        for (int i = 0; i < RACERS * RACE_WRITES; i++) {
                next_race_event(wa, rc, &prev_a);
                next_race_event(wb, rc, &prev_b);
        }
        no_event(wa);
        no_event(wb);
        store_watch_stop(wa);
        store_watch_stop(wb);
        store_close(other);
}

/* Two stores on one etcd: a cached read through one holds the other's writes once its watch
 * delivered them; an update from a copy the other moved past is caught by the compare. */
static void test_etcd_cached_two_stores(void **state)
{
        struct fixture *f = *state;
        const struct store_etcd_options eo = { .endpoints = etcd_endpoint() };
        struct store *other = NULL;
        struct store_watch *w = NULL;
        cleanup_json json_t *before = NULL, *mine = NULL, *cur = NULL, *theirs = NULL, *got = NULL;

        assert_int_equal(store_open_etcd(&eo, NULL, &other, NULL), 0);
        create_ok(f->s, "namespaces", "", "n1", "i"); /* 1 */
        assert_int_equal(store_get_cached(f->s, "namespaces", "", "n1", &before, NULL), 0);
        assert_int_equal(store_watch_start(f->s, "namespaces", NULL, R(1), &w, NULL), 0);
        theirs = json_deep_copy(before);
        json_object_set_new(json_object_get(theirs, "metadata"), "labels",
                            json_pack("{s:s}", "by", "other"));
        assert_int_equal(store_update(other, "namespaces", "", "n1", theirs, R(1), NULL), 1);
        /* once this store's watch has the other's write, so have its cached reads */
        next_event(w, STORE_EVENT_MODIFIED, 2, "n1");
        assert_int_equal(store_get_cached(f->s, "namespaces", "", "n1", &got, NULL), 0);
        assert_rv(got, 2);
        assert_string_equal(json_path_string(got, "metadata.labels.by"), "other");
        /* from the copy read before: lost, and retried from what it lost to */
        mine = json_deep_copy(before);
        json_object_set_new(mine, "spec", json_pack("{s:[s]}", "finalizers", "kubernetes"));
        assert_int_equal(store_update_from(f->s, "namespaces", "", "n1", mine, before, &cur, NULL),
                         -ESTALE);
        assert_rv(cur, 2);
        json_decref(mine);
        mine = json_deep_copy(cur);
        json_object_set_new(mine, "spec", json_pack("{s:[s]}", "finalizers", "kubernetes"));
        assert_int_equal(store_update_from(f->s, "namespaces", "", "n1", mine, cur, NULL, NULL),
                         1); /* 3 */
        json_decref(got);
        got = NULL;
        assert_int_equal(store_get(f->s, "namespaces", "", "n1", &got, NULL), 0);
        assert_rv(got, 3);
        assert_string_equal(json_path_string(got, "metadata.labels.by"), "other");
        assert_string_equal(json_string_value(json_array_get(json_path(got, "spec.finalizers"), 0)),
                            "kubernetes");
        store_watch_stop(w);
        store_close(other);
}

/* K8S (compact.go): the compactor compacts to the revision of one interval ago; a watch from
 * below it is 410 Expired, one from after it goes on. */
static void test_etcd_compaction(void **state)
{
        struct fixture *f = *state;
        const struct store_etcd_options eo = { .endpoints = etcd_endpoint(),
                                               .compaction_interval_ms = 100 };
        struct store_watch *w = NULL;
        struct error *err = NULL;
        cleanup_json json_t *ans = NULL;
        cleanup_free char *body = NULL;
        int r = 0;

        f->s = store_close(f->s);
        assert_int_equal(store_open_etcd(&eo, NULL, &f->s, NULL), 0);
        create_ok(f->s, "pods", "default", "a", "i"); /* 1 */
        create_ok(f->s, "pods", "default", "b", "i"); /* 2 */
        /* Within a bound, not a timing: the second tick compacts what the first saw. */
        for (int i = 0; i < 200; i++) {
                r = store_watch_start(f->s, "pods", NULL, R(1), &w, NULL);
                w = store_watch_stop(w);
                if (r == -ERANGE)
                        break;
                usleep(50 * 1000);
        }
        assert_int_equal(r, -ERANGE);
        assert_int_equal(store_watch_start(f->s, "pods", NULL, R(1), &w, &err), -ERANGE);
        assert_non_null(strstr(err->message, "too old resource version"));
        err = error_free(err);
        /* etcd itself compacted (the compaction key holds the revision) */
        body = xasprintf("{\"key\":\"%s\",\"revision\":%" PRIu64 "}", "L3JlZ2lzdHJ5Lw==", R(1));
        ans = etcd_raw("/v3/kv/range", body);
        assert_non_null(
                strstr(json_string_value(json_object_get(ans, "error")) ?: "", "compacted"));
        {
                cleanup_json json_t *ck = raw_kv("compact_rev_key");

                assert_non_null(ck);
        }
        assert_int_equal(store_watch_start(f->s, "pods", NULL, store_current_rv(f->s), &w, NULL),
                         0);
        /* the compactor's own key moves the revision too: count from here */
        base_rv = store_current_rv(f->s);
        {
                cleanup_json json_t *c = pod("default", "c", "i");
                struct store_event ev = { 0 };

                assert_int_equal(store_create(f->s, "pods", "default", "c", c, NULL), 0);
                assert_int_equal(store_watch_next(w, 5000, &ev), 1);
                assert_int_equal(ev.type, STORE_EVENT_ADDED);
                assert_string_equal(rv_of(ev.object), rv_of(c));
                store_event_release(&ev);
        }
        store_watch_stop(w);
}

/* K8S: --event-ttl: events on a lease, deleted by etcd when it runs out; others on none. */
static void test_etcd_ttl(void **state)
{
        struct fixture *f = *state;
        struct store_watch *w = NULL;
        struct store_event ev = { 0 };
        cleanup_json json_t *ekv = NULL, *pkv = NULL;

        assert_int_equal(store_set_ttl(f->s, "events", 1), 0);
        assert_int_equal(store_watch_start(f->s, "events", NULL, R(0), &w, NULL), 0);
        create_ok(f->s, "events", "default", "e1", "i"); /* 1 */
        create_ok(f->s, "events", "default", "e2", "i"); /* 2: the same lease, reused */
        create_ok(f->s, "pods", "default", "p", "i");    /* 3 */
        ekv = raw_kv("/registry/events/default/e1");
        pkv = raw_kv("/registry/pods/default/p");
        assert_non_null(json_object_get(ekv, "lease"));
        assert_null(json_object_get(pkv, "lease"));
        json_decref(ekv);
        ekv = raw_kv("/registry/events/default/e2");
        assert_non_null(json_object_get(ekv, "lease"));
        next_event(w, STORE_EVENT_ADDED, 1, "e1");
        next_event(w, STORE_EVENT_ADDED, 2, "e2");
        /* etcd's shortest lease is a few seconds: wait for the expiry, bounded */
        for (int n = 0; n < 2;) {
                assert_int_equal(store_watch_next(w, 30000, &ev), 1);
                assert_int_equal(ev.type, STORE_EVENT_DELETED);
                n++;
                store_event_release(&ev);
        }
        store_watch_stop(w);
        json_decref(pkv);
        pkv = NULL;
        assert_int_equal(store_get(f->s, "pods", "default", "p", &pkv, NULL), 0);
}

/* A dead endpoint first: the next one serves. */
static void test_etcd_failover(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *eps =
                xasprintf("http://127.0.0.1:%d,%s", etcd_free_port(), etcd_endpoint());
        const struct store_etcd_options eo = { .endpoints = eps };
        cleanup_json json_t *got = NULL;

        f->s = store_close(f->s);
        assert_int_equal(store_open_etcd(&eo, NULL, &f->s, NULL), 0);
        create_ok(f->s, "pods", "default", "web", "i");
        assert_int_equal(store_get(f->s, "pods", "default", "web", &got, NULL), 0);
}

static void test_open_errors(void **state)
{
        struct store *s = NULL;
        struct error *err = NULL;
        const struct store_etcd_options bad = { .endpoints = "unix:///x" }, none = { 0 };

        (void) state;
        assert_int_equal(store_open_etcd(&bad, NULL, &s, &err), -EINVAL);
        assert_null(s);
        assert_non_null(strstr(err->message, "--etcd-endpoints"));
        err = error_free(err);
        assert_int_equal(store_open_etcd(&none, NULL, &s, &err), -EINVAL);
        err = error_free(err);
}
#else
static void test_open_errors(void **state)
{
        struct fixture *f = *state;
        struct store *s = NULL;
        struct error *err = NULL;
        char p[320];

        (void) snprintf(p, sizeof(p), "%s/missing/dir/store.db", f->dir);
        assert_true(store_open_sqlite(p, &s, &err) < 0);
        assert_null(s);
        assert_non_null(strstr(err->message, "opening store"));
        err = error_free(err);
        assert_int_equal(store_open_sqlite("", &s, &err), -EINVAL);
        err = error_free(err);

        /* One owner at a time: the counter lives in the owner's memory. */
        assert_int_equal(store_open_sqlite(f->path, &s, &err), -EBUSY);
        assert_null(s);
        assert_non_null(strstr(err->message, "in use"));
        err = error_free(err);
        create_ok(f->s, "pods", "default", "still-works", "i");
        f->s = store_close(f->s);
        assert_int_equal(store_open_sqlite(f->path, &f->s, NULL), 0);
        assert_int_equal(store_current_rv(f->s), R(1));
}

/* SQLite keeps every object until deleted, as it always did. */
static void test_no_ttl(void **state)
{
        struct fixture *f = *state;

        assert_int_equal(store_set_ttl(f->s, "events", 3600), -EOPNOTSUPP);
}

/* The disk flushes of this process, counted and, while flush_held is set, held: the test's own
 * fdatasync takes the place of libc's for libsqlite3 and the store (the executable's
 * definition comes first in symbol lookup). */
static pthread_mutex_t flush_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flush_cond = PTHREAD_COND_INITIALIZER;
static bool flush_held, flush_waiting;
static int flushes;

int fdatasync(int fd)
{
        pthread_mutex_lock(&flush_lock);
        flushes++;
        while (flush_held) {
                flush_waiting = true;
                pthread_cond_broadcast(&flush_cond);
                pthread_cond_wait(&flush_cond, &flush_lock);
        }
        pthread_mutex_unlock(&flush_lock);
        return (int) syscall(SYS_fdatasync, fd);
}

struct bg_write {
        struct store *s;
        char name[16];
        pthread_t thread;
        atomic_bool returned;
        int result;
};

static void *bg_create(void *p)
{
        struct bg_write *b = p;
        cleanup_json json_t *o = pod("default", b->name, "i");

        b->result = store_create(b->s, "pods", "default", b->name, o, NULL);
        atomic_store(&b->returned, true);
        return NULL;
}

static void *bg_get(void *p)
{
        struct bg_write *b = p;
        cleanup_json json_t *got = NULL;

        b->result = store_get(b->s, "pods", "default", b->name, &got, NULL);
        atomic_store(&b->returned, true);
        return NULL;
}

/* Rows committed to the database, as another SQLite connection sees them. */
static int64_t committed_rows(struct fixture *f)
{
        sqlite3 *db = NULL;
        sqlite3_stmt *st = NULL;
        int64_t n = -1;

        assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM objects", -1, &st, NULL),
                         SQLITE_OK);
        if (sqlite3_step(st) == SQLITE_ROW)
                n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(db);
        return n;
}

/* The flush is made outside the writers' lock: while one writer's flush is held, the writers
 * after it commit, and one flush then serves them all. Nobody sees a write before its flush:
 * not its writer, not a watcher, not a read of the database. */
static void test_flush_outside_the_lock(void **state)
{
        struct fixture *f = *state;
        struct bg_write w[4], reader = { .s = f->s };
        struct store_watch *watch = NULL;
        struct store_event ev = { 0 };
        int64_t rows;
        int returned = 0, seen;

        /* on the empty store: every pod that comes is a live event */
        assert_int_equal(store_watch_start(f->s, "pods", NULL, 0, &watch, NULL), 0);
        pthread_mutex_lock(&flush_lock);
        flush_held = true;
        flush_waiting = false;
        flushes = 0;
        pthread_mutex_unlock(&flush_lock);
        for (size_t i = 0; i < ARRAY_SIZE(w); i++) {
                w[i] = (struct bg_write){ .s = f->s };
                (void) snprintf(w[i].name, sizeof(w[i].name), "w%zu", i);
                assert_int_equal(pthread_create(&w[i].thread, NULL, bg_create, &w[i]), 0);
                if (i == 0) {
                        /* the first writer's flush has begun */
                        pthread_mutex_lock(&flush_lock);
                        while (!flush_waiting)
                                pthread_cond_wait(&flush_cond, &flush_lock);
                        pthread_mutex_unlock(&flush_lock);
                }
        }
        for (int n = 0; n < 5000 && committed_rows(f) < (int64_t) ARRAY_SIZE(w); n++)
                usleep(1000);
        rows = committed_rows(f);
        (void) snprintf(reader.name, sizeof(reader.name), "w3");
        assert_int_equal(pthread_create(&reader.thread, NULL, bg_get, &reader), 0);
        usleep(50 * 1000);
        for (size_t i = 0; i < ARRAY_SIZE(w); i++)
                returned += atomic_load(&w[i].returned);
        returned += atomic_load(&reader.returned);
        seen = store_watch_next(watch, 0, &ev);
        store_event_release(&ev);

        /* released before anything is asserted: a failure must not leave the writers held */
        pthread_mutex_lock(&flush_lock);
        flush_held = false;
        pthread_cond_broadcast(&flush_cond);
        pthread_mutex_unlock(&flush_lock);
        for (size_t i = 0; i < ARRAY_SIZE(w); i++) {
                assert_int_equal(pthread_join(w[i].thread, NULL), 0);
                assert_int_equal(w[i].result, 0);
        }
        assert_int_equal(pthread_join(reader.thread, NULL), 0);
        assert_int_equal(reader.result, 0);
        /* while the first flush was held: every write committed, none answered or seen */
        assert_int_equal(rows, ARRAY_SIZE(w));
        assert_int_equal(returned, 0);
        assert_int_equal(seen, 0);
        /* the first writer's flush, and one for the three committed while it was held */
        pthread_mutex_lock(&flush_lock);
        assert_int_equal(flushes, 2);
        pthread_mutex_unlock(&flush_lock);
        for (uint64_t n = 1; n <= ARRAY_SIZE(w); n++) {
                assert_int_equal(store_watch_next(watch, 1000, &ev), 1);
                assert_int_equal(ev.rv, R(n));
                store_event_release(&ev);
        }
        store_watch_stop(watch);
}
#endif

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rv_parse),
                cmocka_unit_test(test_event_type_strings),
                cmocka_unit_test_setup_teardown(test_crud, setup, teardown),
                cmocka_unit_test_setup_teardown(test_key_is_resource_namespace_name, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_create_existing, setup, teardown),
                cmocka_unit_test_setup_teardown(test_invalid_arguments, setup, teardown),
                cmocka_unit_test_setup_teardown(test_too_big, setup, teardown),
                cmocka_unit_test_setup_teardown(test_conflict, setup, teardown),
                cmocka_unit_test_setup_teardown(test_noop_update, setup, teardown),
                cmocka_unit_test_setup_teardown(test_update_from, setup, teardown),
                cmocka_unit_test_setup_teardown(test_update_from_stale_retry, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cached_reads, setup, teardown),
                cmocka_unit_test_setup_teardown(test_list, setup, teardown),
                cmocka_unit_test_setup_teardown(test_watch_from_zero, setup, teardown),
                cmocka_unit_test_setup_teardown(test_watch_all_namespaces, setup, teardown),
                cmocka_unit_test_setup_teardown(test_watch_replay, setup, teardown),
                cmocka_unit_test_setup_teardown(test_watch_too_old, setup, teardown),
                cmocka_unit_test_setup_teardown(test_deleted_event, setup, teardown),
                cmocka_unit_test_setup_teardown(test_watch_timeout, setup, teardown),
                cmocka_unit_test_setup_teardown(test_end_watches, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slow_watcher_cancelled, setup, teardown),
                cmocka_unit_test_setup_teardown(test_close_wakes_watchers, setup, teardown),
                cmocka_unit_test_setup_teardown(test_concurrent_writers, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mixed_concurrent_writers, setup, teardown),
                cmocka_unit_test_setup_teardown(test_watch_from_zero_during_writes, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_reopen_persists, setup, teardown),
                cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
#ifdef STORE_TEST_ETCD
                cmocka_unit_test_setup_teardown(test_etcd_keys, setup, teardown),
                cmocka_unit_test_setup_teardown(test_etcd_list_pages, setup, teardown),
                cmocka_unit_test_setup_teardown(test_etcd_two_stores, setup, teardown),
                cmocka_unit_test_setup_teardown(test_etcd_cached_two_stores, setup, teardown),
                cmocka_unit_test_setup_teardown(test_etcd_racing_stores, setup, teardown),
                cmocka_unit_test_setup_teardown(test_etcd_compaction, setup, teardown),
                cmocka_unit_test_setup_teardown(test_etcd_ttl, setup, teardown),
                cmocka_unit_test_setup_teardown(test_etcd_failover, setup, teardown),
        };

        if (!etcd_installed()) {
                (void) printf("1..0 # SKIP etcd not installed\n");
                return 0;
        }
        return cmocka_run_group_tests(tests, etcd_start, etcd_stop);
#else
                cmocka_unit_test_setup_teardown(test_no_ttl, setup, teardown),
                cmocka_unit_test_setup_teardown(test_flush_outside_the_lock, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
