/* test-informer-feed.c: informers fed from a real SQLite store's watch cache (informer-feed.h):
 * they list and watch without HTTP, filter by the path's label and field selectors as the
 * server does, hold the very objects the store's cache holds (an answer they kept gives way to
 * the cache's object of the same version), list again when their watcher fell behind (the store
 * cancelled it), and end before the store is closed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiserver/informer-feed.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

#define QUEUE 4 /* live events a watcher may leave unread */

struct fixture {
        char dir[256];
        char path[320];
        struct store *s;
        struct informer_feed *feed;
};

static int setup(void **state)
{
        struct fixture *f = xcalloc(1, sizeof(*f));
        const char *tmp = getenv("TMPDIR");
        const struct store_options o = { .watch_queue = QUEUE };

        (void) snprintf(f->dir, sizeof(f->dir), "%s/flexlet-feed-XXXXXX", tmp ? tmp : "/tmp");
        if (!mkdtemp(f->dir))
                return -1;
        (void) snprintf(f->path, sizeof(f->path), "%s/store.db", f->dir);
        if (store_open_sqlite_with(f->path, &o, &f->s, NULL) < 0)
                return -1;
        f->feed = informer_feed_new(f->s);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        static const char *const suffixes[] = { "", "-wal", "-shm", "-journal", "-lock" };
        struct fixture *f = *state;

        /* the informers were stopped: nothing reads through the feed or the store now */
        informer_feed_free(f->feed);
        store_close(f->s);
        for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
                char p[340];

                (void) snprintf(p, sizeof(p), "%s%s", f->path, suffixes[i]);
                (void) unlink(p);
        }
        (void) rmdir(f->dir);
        free(f);
        return 0;
}

static json_t *drop(json_t *o)
{
        json_decref(o);
        return NULL;
}

static json_t *pod(const char *ns, const char *name, const char *app)
{
        json_t *o = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:[{s:s, s:s}]}}", "apiVersion", "v1",
                              "kind", "Pod", "metadata", "name", name, "namespace", ns, "spec",
                              "containers", "name", "c", "image", "busybox");

        if (app)
                json_object_set_new(json_object_get(o, "metadata"), "labels",
                                    json_pack("{s:s}", "app", app));
        return o;
}

static void create_pod(struct fixture *f, const char *ns, const char *name, const char *app)
{
        cleanup_json json_t *o = pod(ns, name, app);

        assert_int_equal(store_create(f->s, "pods", ns, name, o, NULL), 0);
}

/* The store cache's own object for ns/name (a borrowed pointer: the cache keeps it alive while
 * it is current). */
static const json_t *cached(struct fixture *f, const char *ns, const char *name)
{
        cleanup_json json_t *items = NULL;
        const json_t *found = NULL;
        size_t i;
        json_t *obj;

        assert_int_equal(store_list_shared(f->s, "pods", ns, &items, NULL, NULL), 0);
        json_array_foreach(items, i, obj) {
                if (streq(json_path_string(obj, "metadata.name") ?: "", name))
                        found = obj;
        }
        assert_non_null(found);
        return found;
}

/* Waits (a bounded number of changes) until collection i holds key with resourceVersion rv
 * (NULL: any), or, with present false, until it does not hold key. */
static void wait_for(struct informer *w, size_t i, const char *key, bool present, const char *rv)
{
        for (int n = 0; n < 1000; n++) {
                cleanup_json json_t *got = informer_get(w, i, key);
                const char *have = got ? json_path_string(got, "metadata.resourceVersion") : NULL;

                if (present ? got && (!rv || streq(have ?: "", rv)) : !got)
                        return;
                (void) informer_wait(w, 10);
        }
        fail_msg("collection %zu: %s never %s", i, key, present ? "came" : "went");
}

static void wait_synced(struct informer *w)
{
        for (int n = 0; n < 1000 && !informer_synced(w); n++)
                (void) informer_wait(w, 10);
        assert_true(informer_synced(w));
}

static size_t count(struct informer *w, size_t i)
{
        cleanup_json json_t *snap = informer_snapshot(w, i);

        return json_object_size(snap);
}

static void test_list_watch_selectors(void **state)
{
        struct fixture *f = *state;
        const char *const paths[] = { "/api/v1/pods",
                                      "/api/v1/namespaces/ns/pods?labelSelector=app%3Dx",
                                      "/api/v1/pods?fieldSelector=metadata.name%3Dc", NULL };
        const struct api_client_options co = { .feed = f->feed };
        struct informer *w = NULL;
        cleanup_json json_t *a = NULL, *got = NULL;

        create_pod(f, "ns", "a", NULL);
        create_pod(f, "ns", "b", "x");
        create_pod(f, "other", "c", "x");
        assert_int_equal(
                informer_start(&co, &(struct informer_options){ .paths = paths }, &w, NULL), 0);
        wait_synced(w);
        /* listed: everything, the label's, the field's */
        assert_int_equal(count(w, 0), 3);
        assert_int_equal(count(w, 1), 1);
        assert_int_equal(count(w, 2), 1);
        got = informer_get(w, 1, "ns/b");
        assert_non_null(got);
        got = drop(got);
        got = informer_get(w, 2, "other/c");
        assert_non_null(got);
        got = drop(got);
        /* no copy: the informer holds the cache's own objects */
        got = informer_get(w, 0, "ns/a");
        assert_ptr_equal(got, cached(f, "ns", "a"));
        got = drop(got);

        /* added: to the collections whose selectors it matches */
        create_pod(f, "ns", "d", "x");
        wait_for(w, 1, "ns/d", true, NULL);
        wait_for(w, 0, "ns/d", true, NULL);
        got = informer_get(w, 0, "ns/d");
        assert_ptr_equal(got, cached(f, "ns", "d"));
        got = drop(got);
        assert_int_equal(count(w, 2), 1);

        /* modified */
        assert_int_equal(store_get(f->s, "pods", "ns", "a", &a, NULL), 0);
        json_object_set_new(json_object_get(a, "metadata"), "labels",
                            json_pack("{s:s}", "app", "y"));
        assert_int_equal(store_update(f->s, "pods", "ns", "a", a, 0, NULL), 1);
        wait_for(w, 0, "ns/a", true, json_path_string(a, "metadata.resourceVersion"));
        got = informer_get(w, 0, "ns/a");
        assert_ptr_equal(got, cached(f, "ns", "a"));
        assert_string_equal(json_path_string(got, "metadata.labels.app"), "y");
        got = drop(got);

        /* deleted */
        assert_int_equal(store_delete(f->s, "pods", "ns", "b", 0, NULL, NULL), 0);
        wait_for(w, 1, "ns/b", false, NULL);
        wait_for(w, 0, "ns/b", false, NULL);
        informer_stop(w);
}

/* A feed around the real one that holds the first event of its first round until the test
 * lets it go, and counts the rounds (each one list). */
struct slow_feed {
        struct informer_feed feed;
        const struct informer_feed *real;
        atomic_int rounds;
        atomic_bool blocked, released;
};

struct slow_round {
        struct slow_feed *sf;
        const struct informer_feed_handler *h;
        int round;
};

static void slow_list(void *ud, const json_t *items)
{
        struct slow_round *sr = ud;

        sr->h->list(sr->h->ud, items);
}

static int slow_event(void *ud, const char *type, json_t *object)
{
        struct slow_round *sr = ud;

        if (sr->round == 1 && !atomic_load(&sr->sf->released)) {
                atomic_store(&sr->sf->blocked, true);
                while (!atomic_load(&sr->sf->released))
                        usleep(1000);
        }
        return sr->h->event(sr->h->ud, type, object);
}

static int slow_list_watch(const struct informer_feed *feed, const char *path, int cancel_fd,
                           const struct informer_feed_handler *h, struct error **reterr)
{
        struct slow_feed *sf = feed->ud;
        struct slow_round sr = { sf, h, atomic_fetch_add(&sf->rounds, 1) + 1 };
        const struct informer_feed_handler wrapped = { .list = slow_list,
                                                       .event = slow_event,
                                                       .ud = &sr };

        return sf->real->list_watch(sf->real, path, cancel_fd, &wrapped, reterr);
}

static void test_fell_behind_relists(void **state)
{
        struct fixture *f = *state;
        const char *const paths[] = { "/api/v1/namespaces/ns/pods", NULL };
        struct slow_feed sf = { .real = f->feed };
        struct informer *w = NULL;
        char name[16];

        sf.feed = (struct informer_feed){ .list_watch = slow_list_watch, .ud = &sf };
        assert_int_equal(informer_start(&(struct api_client_options){ .feed = &sf.feed },
                                        &(struct informer_options){ .paths = paths }, &w, NULL),
                         0);
        wait_synced(w);
        create_pod(f, "ns", "p0", NULL);
        while (!atomic_load(&sf.blocked))
                usleep(1000);
        /* more live events than the watcher may leave unread: the store cancels it */
        for (int i = 1; i <= 2 * QUEUE; i++) {
                (void) snprintf(name, sizeof(name), "p%d", i);
                create_pod(f, "ns", name, NULL);
        }
        atomic_store(&sf.released, true);
        for (int n = 0; n < 5000 && atomic_load(&sf.rounds) < 2; n++)
                usleep(1000);
        (void) snprintf(name, sizeof(name), "ns/p%d", 2 * QUEUE);
        wait_for(w, 0, name, true, NULL);
        assert_int_equal(count(w, 0), 2 * QUEUE + 1);
        /* the watch ended with -ECANCELED and the informer listed again, once */
        assert_int_equal(atomic_load(&sf.rounds), 2);
        informer_stop(w);
}

/* An answer the informer kept (informer_store: a copy) gives way to the watch event of the
 * same version, the cache's own object: one copy of each object, not two. */
static void test_answer_gives_way(void **state)
{
        struct fixture *f = *state;
        const char *const paths[] = { "/api/v1/namespaces/ns/pods", NULL };
        struct slow_feed sf = { .real = f->feed };
        struct informer *w = NULL;
        cleanup_json json_t *answer = NULL;
        json_t *got = NULL;

        /* a version to list at: at 0 (an empty store) the watch would start with a list of its
         * own (store_watch_start), which may hold "a" as decoded from the store */
        create_pod(f, "other", "x", NULL);
        sf.feed = (struct informer_feed){ .list_watch = slow_list_watch, .ud = &sf };
        assert_int_equal(informer_start(&(struct api_client_options){ .feed = &sf.feed },
                                        &(struct informer_options){ .paths = paths }, &w, NULL),
                         0);
        wait_synced(w);
        create_pod(f, "ns", "a", NULL);
        /* the event is held: the write's answer comes first */
        while (!atomic_load(&sf.blocked))
                usleep(1000);
        answer = json_deep_copy(cached(f, "ns", "a"));
        informer_store(w, 0, answer);
        got = informer_get(w, 0, "ns/a");
        assert_ptr_not_equal(got, cached(f, "ns", "a"));
        got = drop(got);
        atomic_store(&sf.released, true);
        for (int n = 0; n < 1000; n++) {
                got = informer_get(w, 0, "ns/a");
                if (got == cached(f, "ns", "a"))
                        break;
                got = drop(got);
                usleep(10000);
        }
        assert_ptr_equal(got, cached(f, "ns", "a"));
        drop(got);
        informer_stop(w);
}

static void test_stop_restart(void **state)
{
        struct fixture *f = *state;
        const char *const paths[] = { "/api/v1/pods", NULL };
        const struct api_client_options co = { .feed = f->feed };
        const struct informer_options io = { .paths = paths };
        struct informer *w = NULL;

        create_pod(f, "ns", "a", NULL);
        assert_int_equal(informer_start(&co, &io, &w, NULL), 0);
        wait_synced(w);
        assert_int_equal(count(w, 0), 1);
        /* stop joins the collection's thread: a store write now reaches no one */
        informer_stop(w);
        create_pod(f, "ns", "b", NULL);
        assert_int_equal(informer_start(&co, &io, &w, NULL), 0);
        wait_synced(w);
        assert_int_equal(count(w, 0), 2);
        create_pod(f, "ns", "c", NULL);
        wait_for(w, 0, "ns/c", true, NULL);
        informer_stop(w);
}

static int on_list_ignored(void *ud, const char *type, json_t *object)
{
        return 0;
}

static void on_items_ignored(void *ud, const json_t *items)
{
}

static void test_bad_paths(void **state)
{
        struct fixture *f = *state;
        const struct informer_feed_handler h = { .list = on_items_ignored,
                                                 .event = on_list_ignored };
        struct error *err = NULL;

        assert_int_equal(f->feed->list_watch(f->feed, "/api/v1/nothings", -1, &h, &err), -ENOENT);
        err = error_free(err);
        assert_int_equal(f->feed->list_watch(f->feed, "/api/v1/namespaces/ns/pods/a", -1, &h, &err),
                         -ENOENT);
        err = error_free(err);
        assert_int_equal(f->feed->list_watch(f->feed, "/api/v1/pods?labelSelector=a%3D%3D%3Db", -1,
                                             &h, &err),
                         -EINVAL);
        err = error_free(err);
        assert_int_equal(f->feed->list_watch(f->feed, "/api/v1/pods?fieldSelector=spec.image%3Db",
                                             -1, &h, &err),
                         -EINVAL);
        error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_list_watch_selectors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fell_behind_relists, setup, teardown),
                cmocka_unit_test_setup_teardown(test_answer_gives_way, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stop_restart, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_paths, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
