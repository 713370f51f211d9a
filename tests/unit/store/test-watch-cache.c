/* test-watch-cache.c: the in-memory watch history on its own, without storage: window edges
 * (also with gaps between versions, as etcd produces them), the bound on unread live events,
 * each reader owning its copy, watchers outliving the store's reference, what etcd's
 * compaction and a lost feed do to the history, history bounded in time, published objects
 * sharing their equal parts, and watchers that filter what wakes them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "store/store-internal.h"

static json_t *obj(const char *name, uint64_t rv)
{
        char buf[24];

        (void) snprintf(buf, sizeof(buf), "%llu", (unsigned long long) rv);
        return json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", name, "namespace", "ns",
                         "resourceVersion", buf);
}

/* A cache bounded by counts only (the byte limits far away). */
static struct watch_cache *cache_new(size_t window, size_t queue_max, uint64_t start_rv)
{
        const struct watch_cache_limits l = { .window = window,
                                              .window_bytes = SIZE_MAX / 2,
                                              .queue_max = queue_max,
                                              .queue_bytes = SIZE_MAX / 2 };

        return watch_cache_new(&l, start_rv);
}

/* An object "o<rv>" of rv; with pad, metadata.pad is a string of pad bytes and the name has a
 * fixed width, so that same-pad objects take the same memory. */
static json_t *padded(uint64_t rv, size_t pad)
{
        char name[24];
        json_t *o;

        (void) snprintf(name, sizeof(name), pad ? "o%06llu" : "o%llu", (unsigned long long) rv);
        o = obj(name, rv);
        if (pad) {
                char *s = xmalloc(pad + 1);

                memset(s, 'x', pad);
                s[pad] = '\0';
                json_object_set_new(json_object_get(o, "metadata"), "pad", json_string(s));
                free(s);
        }
        return o;
}

static void publish_sized(struct watch_cache *c, const char *resource, const char *ns, uint64_t rv,
                          size_t pad)
{
        watch_cache_publish(c, STORE_EVENT_MODIFIED, resource, ns, rv, padded(rv, pad), NULL);
}

static void publish(struct watch_cache *c, const char *resource, const char *ns, uint64_t rv)
{
        publish_sized(c, resource, ns, rv, 0);
}

static uint64_t next_rv(struct store_watch *w)
{
        struct store_event ev = { 0 };
        uint64_t rv;

        assert_int_equal(store_watch_next(w, 0, &ev), 1);
        rv = ev.rv;
        store_event_release(&ev);
        return rv;
}

static void test_window_edges(void **state)
{
        /* Table: after publishing 6..9 into a window of 3 that started at 5, which from_rv
         * values may start a watch and what they replay. */
        static const struct {
                uint64_t from;
                int r;
                uint64_t first; /* first replayed rv, 0: none */
        } cases[] = {
                { 4, -ERANGE, 0 }, { 5, -ERANGE, 0 }, { 6, 0, 7 },  { 7, 0, 8 },
                { 8, 0, 9 },       { 9, 0, 0 },       { 12, 0, 0 },
        };
        struct watch_cache *c = cache_new(3, 8, 5);

        assert_int_equal(watch_cache_oldest_rv(c), 5);
        for (uint64_t rv = 6; rv <= 8; rv++)
                publish(c, "pods", "ns", rv);
        assert_int_equal(watch_cache_oldest_rv(c), 5); /* nothing dropped yet */
        publish(c, "pods", "ns", 9);
        assert_int_equal(watch_cache_oldest_rv(c), 6);

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct store_watch *w = NULL;
                struct store_event ev = { 0 };
                struct error *err = NULL;
                int r = watch_cache_watch(c, "pods", NULL, cases[i].from, NULL, &w, &err);

                assert_int_equal(r, cases[i].r);
                if (r < 0) {
                        char want[64];

                        (void) snprintf(want, sizeof(want), "too old resource version: %llu (6)",
                                        (unsigned long long) cases[i].from);
                        assert_string_equal(err->message, want);
                        error_free(err);
                        assert_null(w);
                        continue;
                }
                if (cases[i].first) {
                        for (uint64_t rv = cases[i].first; rv <= 9; rv++)
                                assert_int_equal(next_rv(w), rv);
                }
                assert_int_equal(store_watch_next(w, 0, &ev), 0);
                store_watch_stop(w);
        }
        watch_cache_shutdown(c);
        watch_cache_unref(c);
}

static void test_versions_with_gaps(void **state)
{
        struct watch_cache *c = cache_new(2, 8, 0);
        struct store_watch *w = NULL;

        publish(c, "pods", "ns", 10);
        publish(c, "pods", "ns", 20);
        publish(c, "pods", "ns", 30); /* drops 10 */
        assert_int_equal(watch_cache_oldest_rv(c), 10);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 9, NULL, &w, NULL), -ERANGE);
        /* 15 lies in the gap: everything after it (20, 30) is still held. */
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 15, NULL, &w, NULL), 0);
        assert_int_equal(next_rv(w), 20);
        assert_int_equal(next_rv(w), 30);
        store_watch_stop(w);
        watch_cache_unref(c);
}

static void test_filters_and_skips(void **state)
{
        struct watch_cache *c = cache_new(16, 8, 0);
        struct store_watch *w_ns = NULL, *w_all = NULL, *w_ahead = NULL;
        struct store_event ev = { 0 };

        assert_int_equal(watch_cache_watch(c, "pods", "a", 0, NULL, &w_ns, NULL), 0);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 0, NULL, &w_all, NULL), 0);
        /* A watcher whose list is ahead of what was published skips what the list holds. */
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 3, NULL, &w_ahead, NULL), 0);
        publish(c, "pods", "a", 1);
        publish(c, "pods", "b", 2);
        publish(c, "pod", "a", 3); /* a resource named by a prefix does not match */
        publish(c, "podsx", "a", 4);
        publish(c, "pods", "", 5);
        publish(c, "pods", "a", 6);

        assert_int_equal(next_rv(w_ns), 1);
        assert_int_equal(next_rv(w_ns), 6);
        assert_int_equal(store_watch_next(w_ns, 0, &ev), 0);
        assert_int_equal(next_rv(w_all), 1);
        assert_int_equal(next_rv(w_all), 2);
        assert_int_equal(next_rv(w_all), 5);
        assert_int_equal(next_rv(w_all), 6);
        assert_int_equal(store_watch_next(w_all, 0, &ev), 0);
        assert_int_equal(next_rv(w_ahead), 5);
        assert_int_equal(next_rv(w_ahead), 6);
        store_watch_stop(w_ns);
        store_watch_stop(w_all);
        store_watch_stop(w_ahead);
        watch_cache_unref(c);
}

static void test_backlog_is_not_bounded_live_is(void **state)
{
        struct watch_cache *c = cache_new(16, 2, 0);
        struct store_watch *w = NULL;
        json_t *initial = json_array();
        struct store_event ev = { 0 };

        for (uint64_t rv = 1; rv <= 5; rv++)
                json_array_append_new(initial, obj("x", rv));
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 5, initial, &w, NULL), 0);
        /* Five synthetic ADDEDs wait unread; two live events still fit the queue of 2. */
        publish(c, "pods", "ns", 6);
        publish(c, "pods", "ns", 7);
        for (uint64_t rv = 1; rv <= 5; rv++) {
                assert_int_equal(store_watch_next(w, 0, &ev), 1);
                assert_int_equal(ev.type, STORE_EVENT_ADDED);
                assert_int_equal(ev.rv, rv);
                store_event_release(&ev);
        }
        assert_int_equal(next_rv(w), 6);
        /* One unread live event (7); a second and third fill and overflow the queue. */
        publish(c, "pods", "ns", 8);
        assert_int_equal(next_rv(w), 7);
        publish(c, "pods", "ns", 9);
        publish(c, "pods", "ns", 10);
        assert_int_equal(store_watch_next(w, 0, &ev), -ECANCELED);
        store_watch_stop(w);
        watch_cache_unref(c);
}

/* Large objects written often once grew the history to gigabytes: the window and each
 * watcher's unread live events are bounded by the memory their objects hold too (an event
 * counts its object's json_memory_size and its JSON text, a little more with the event
 * itself). */
static void test_bytes_bound_window_and_queue(void **state)
{
        cleanup_json json_t *sample = padded(1, 300);
        cleanup_free char *text = json_dump_compact(sample);
        const size_t unit = json_memory_size(sample) + malloc_usable_size(text) + 64;
        const struct watch_cache_limits l = { .window = 100,
                                              .window_bytes = 3 * unit + unit / 2,
                                              .queue_max = 100,
                                              .queue_bytes = 2 * unit + unit / 2 };
        struct watch_cache *c = watch_cache_new(&l, 0);
        struct store_watch *w = NULL, *slow = NULL;

        for (uint64_t rv = 1; rv <= 10; rv++)
                publish_sized(c, "pods", "ns", rv, 300);
        /* three fit in the window: 8..10 are kept, a watch from 6 is too old */
        assert_int_equal(watch_cache_oldest_rv(c), 7);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 6, NULL, &w, NULL), -ERANGE);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 7, NULL, &w, NULL), 0);
        assert_int_equal(next_rv(w), 8);
        assert_int_equal(next_rv(w), 9);
        assert_int_equal(next_rv(w), 10);
        store_watch_stop(w);
        /* one event larger than the whole window is still kept, alone */
        publish_sized(c, "pods", "ns", 11, 5000);
        assert_int_equal(watch_cache_oldest_rv(c), 10);

        /* a watcher that reads nothing: two unread fit in its queue, a third cancels it; one
         * that reads as it goes is never cancelled */
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 11, NULL, &slow, NULL), 0);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 11, NULL, &w, NULL), 0);
        for (uint64_t rv = 12; rv <= 14; rv++) {
                publish_sized(c, "pods", "ns", rv, 300);
                assert_int_equal(next_rv(w), rv);
        }
        {
                struct store_event ev = { 0 };
                assert_int_equal(store_watch_next(slow, 0, &ev), -ECANCELED);
        }
        store_watch_stop(slow);
        store_watch_stop(w);
        watch_cache_unref(c);
}

/* Most of the history is versions newer ones replaced: the ring keeps an event's JSON alone once
 * it is far enough behind the newest and no reader holds it, so the same byte bound holds a
 * longer window; a watch from an old version still gets each version decoded, whole. An event a
 * reader holds keeps its object. */
static void test_history_keeps_old_versions_as_json(void **state)
{
        cleanup_json json_t *sample = padded(1, 300);
        cleanup_free char *text = json_dump_compact(sample);
        const size_t unit = json_memory_size(sample) + malloc_usable_size(text) + 64;
        const struct watch_cache_limits l = { .window = 1000,
                                              .window_bytes = 40 * unit,
                                              .queue_max = 1000,
                                              .queue_bytes = SIZE_MAX / 2 };
        struct watch_cache *c = watch_cache_new(&l, 0);
        struct store_watch *w = NULL, *holder = NULL;
        struct store_event held = { 0 };
        uint64_t oldest;

        /* a reader that takes the first event and keeps it */
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 0, NULL, &holder, NULL), 0);
        publish_sized(c, "pods", "ns", 1, 300);
        assert_int_equal(store_watch_next(holder, 0, &held), 1);
        store_watch_stop(holder);
        for (uint64_t rv = 2; rv <= 200; rv++)
                publish_sized(c, "pods", "ns", rv, 300);
        /* decoded, 40 units would hold 40 events; with the older ones as JSON, over twice that */
        oldest = watch_cache_oldest_rv(c);
        assert_true(oldest < 200 - 80);
        assert_string_equal(json_path_string(held.object, "metadata.name"), "o000001");
        assert_string_equal(json_path_string(held.object, "metadata.pad"),
                            json_path_string(sample, "metadata.pad"));
        store_event_release(&held);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, oldest, NULL, &w, NULL), 0);
        for (uint64_t rv = oldest + 1; rv <= 200; rv++) {
                struct store_event ev = { 0 };
                char name[16];

                assert_int_equal(store_watch_next(w, 0, &ev), 1);
                assert_int_equal(ev.rv, rv);
                (void) snprintf(name, sizeof(name), "o%06llu", (unsigned long long) rv);
                assert_string_equal(json_path_string(ev.object, "metadata.name"), name);
                assert_int_equal(strlen(json_path_string(ev.object, "metadata.pad")), 300);
                store_event_release(&ev);
        }
        store_watch_stop(w);
        watch_cache_unref(c);
}

/* One change is one object and one JSON text for every watcher (never a copy per reader), and
 * both outlive the ring's and the queues' references while a reader holds the event. */
static void test_readers_share_one_object_and_json(void **state)
{
        struct watch_cache *c = cache_new(1, 8, 0);
        struct store_watch *w1 = NULL, *w2 = NULL;
        struct store_event e1 = { 0 }, e2 = { 0 };
        cleanup_free char *text = NULL;

        assert_int_equal(watch_cache_watch(c, "pods", NULL, 0, NULL, &w1, NULL), 0);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 0, NULL, &w2, NULL), 0);
        publish(c, "pods", "ns", 1);
        assert_int_equal(store_watch_next(w1, 0, &e1), 1);
        assert_int_equal(store_watch_next(w2, 0, &e2), 1);
        assert_ptr_equal(e1.object, e2.object);
        assert_ptr_equal(e1.json, e2.json);
        text = json_dump_compact(e1.object);
        assert_string_equal(e1.json, text);
        assert_int_equal(e1.json_len, strlen(text));
        /* the window of one lets the event go from the ring; the readers still hold it */
        publish(c, "pods", "ns", 2);
        assert_string_equal(e2.json, text);
        assert_string_equal(json_path_string(e2.object, "metadata.name"), "o1");
        store_event_release(&e1);
        assert_string_equal(e2.json, text);
        store_event_release(&e2);
        store_watch_stop(w1);
        store_watch_stop(w2);
        watch_cache_unref(c);
}

static void test_watchers_outlive_shutdown(void **state)
{
        struct watch_cache *c = cache_new(4, 8, 0);
        struct store_watch *w = NULL, *late = NULL;
        struct store_event ev = { 0 };
        struct error *err = NULL;

        assert_int_equal(watch_cache_watch(c, "pods", NULL, 0, NULL, &w, NULL), 0);
        publish(c, "pods", "ns", 1); /* queued, never read */
        watch_cache_shutdown(c);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 0, json_array(), &late, &err),
                         -ECANCELED);
        error_free(err);
        publish(c, "pods", "ns", 2); /* dropped */
        watch_cache_unref(c);        /* the store lets go; the watcher still holds it */
        assert_int_equal(store_watch_next(w, 100, &ev), -ECANCELED);
        store_watch_stop(w); /* frees the cache */
        assert_null(store_watch_stop(NULL));
}

/* The storage compacted below rv: the history drops what it held before; a watch may start
 * from rv - 1 (etcd keeps revision rv) and replays what is left. */
static void test_compact(void **state)
{
        struct watch_cache *c = cache_new(10, 8, 5);
        struct store_watch *w = NULL;
        struct error *err = NULL;

        for (uint64_t rv = 6; rv <= 9; rv++)
                publish(c, "pods", "ns", rv);
        watch_cache_compact(c, 8);
        assert_int_equal(watch_cache_oldest_rv(c), 7);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 6, NULL, &w, &err), -ERANGE);
        assert_string_equal(err->message, "too old resource version: 6 (7)");
        err = error_free(err);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 7, NULL, &w, NULL), 0);
        assert_int_equal(next_rv(w), 8);
        assert_int_equal(next_rv(w), 9);
        /* a compaction beyond what was published yet does not stop later events */
        watch_cache_compact(c, 12);
        publish(c, "pods", "ns", 10);
        assert_int_equal(next_rv(w), 10);
        store_watch_stop(w);
        watch_cache_shutdown(c);
        watch_cache_unref(c);
}

/* History older than fresh_ms goes, down to fresh_min events, on the next publish or
 * release; a watch from before it is too old. */
static void test_history_bounded_in_time(void **state)
{
        const struct watch_cache_limits l = { .window = 100,
                                              .window_bytes = SIZE_MAX / 2,
                                              .queue_max = 8,
                                              .queue_bytes = SIZE_MAX / 2,
                                              .fresh_ms = 100,
                                              .fresh_min = 3 };
        struct watch_cache *c = watch_cache_new(&l, 5);
        struct store_watch *w = NULL;

        (void) state;
        for (uint64_t rv = 6; rv <= 15; rv++)
                publish(c, "pods", "ns", rv);
        (void) watch_cache_release_unused(c);
        assert_int_equal(watch_cache_oldest_rv(c), 5); /* all fresh: all kept */
        usleep(150 * 1000);
        (void) watch_cache_release_unused(c);
        assert_int_equal(watch_cache_oldest_rv(c), 12); /* 13, 14, 15 kept */
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 11, NULL, &w, NULL), -ERANGE);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 12, NULL, &w, NULL), 0);
        assert_int_equal(next_rv(w), 13);
        store_watch_stop(w);
        /* a publish drops what went stale too, the new event counting among the kept */
        usleep(150 * 1000);
        publish(c, "pods", "ns", 16);
        assert_int_equal(watch_cache_oldest_rv(c), 13); /* 14, 15, 16 kept */
        watch_cache_shutdown(c);
        watch_cache_unref(c);
}

/* Published objects are made of the cache's interned values: two objects alike but for their
 * names share the rest, and a release keeps what the index holds. */
static void test_published_objects_share_equal_parts(void **state)
{
        struct watch_cache *c = cache_new(10, 8, 5);
        cleanup_json json_t *items = json_array(), *a = NULL, *b = NULL;
        json_t *spec = json_pack("{s:[{s:s, s:s}]}", "containers", "name", "c", "image", "busybox");

        (void) state;
        assert_int_equal(watch_cache_index(c, "pods", items, 5), 0);
        items = NULL;
        for (uint64_t rv = 6; rv <= 7; rv++) {
                cleanup_json json_t *o = obj(rv == 6 ? "a" : "b", rv);

                json_object_set(o, "spec", spec);
                watch_cache_publish(c, STORE_EVENT_ADDED, "pods", "ns", rv,
                                    watch_cache_intern(c, o), NULL);
        }
        json_decref(spec);
        (void) watch_cache_release_unused(c);
        assert_int_equal(watch_cache_get(c, "pods", "ns", "a", false, &a), 0);
        assert_int_equal(watch_cache_get(c, "pods", "ns", "b", false, &b), 0);
        assert_ptr_equal(json_object_get(a, "spec"), json_object_get(b, "spec"));
        assert_ptr_equal(json_path(a, "metadata.namespace"), json_path(b, "metadata.namespace"));
        assert_string_equal(
                json_path_string(json_array_get(json_path(b, "spec.containers"), 0), "image"),
                "busybox");
        watch_cache_shutdown(c);
        watch_cache_unref(c);
}

/* History lost: every watcher ends (it re-lists), the window starts again, complete, at rv. */
static void test_reset(void **state)
{
        struct watch_cache *c = cache_new(10, 8, 5);
        struct store_watch *w = NULL, *after = NULL;
        struct store_event ev = { 0 };

        publish(c, "pods", "ns", 6);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 5, NULL, &w, NULL), 0);
        watch_cache_reset(c, 20);
        assert_int_equal(store_watch_next(w, 0, &ev), -ECANCELED);
        assert_int_equal(watch_cache_oldest_rv(c), 20);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 6, NULL, &after, NULL), -ERANGE);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 20, NULL, &after, NULL), 0);
        publish(c, "pods", "ns", 21);
        assert_int_equal(next_rv(after), 21);
        store_watch_stop(w);
        store_watch_stop(after);
        watch_cache_shutdown(c);
        watch_cache_unref(c);
}

/* The object index: primed from a list at some rv, the retained events after it applied on
 * top, those at or below it ignored, and every later event kept. */
static void test_index(void **state)
{
        struct watch_cache *c = cache_new(10, 8, 5);
        json_t *items = json_pack("[o, o]", obj("o6", 6), obj("old", 3));
        json_t *got = NULL, *list = NULL;
        uint64_t rv = 0;

        assert_int_equal(watch_cache_get(c, "pods", "ns", "o6", true, &got), -ENODATA);
        assert_int_equal(watch_cache_list(c, "pods", NULL, true, &list, NULL), -ENODATA);
        publish(c, "pods", "ns", 6);       /* in the list already */
        publish(c, "pods", "ns", 7);       /* after it */
        publish(c, "configmaps", "ns", 8); /* another resource */
        assert_int_equal(watch_cache_index(c, "pods", items, 6), 0);
        assert_int_equal(watch_cache_get(c, "pods", "ns", "o7", true, &got), 0);
        assert_string_equal(json_path_string(got, "metadata.resourceVersion"), "7");
        json_decref(got);
        assert_int_equal(watch_cache_get(c, "pods", "ns", "o8", true, &got), -ENOENT);
        assert_int_equal(watch_cache_get(c, "pods", "other", "o7", true, &got), -ENOENT);
        /* a second priming keeps the first index */
        assert_int_equal(watch_cache_index(c, "pods", json_array(), 8), 0);
        watch_cache_publish(c, STORE_EVENT_DELETED, "pods", "ns", 9, obj("old", 9), NULL);
        publish(c, "pods", "ns", 10);
        assert_int_equal(watch_cache_list(c, "pods", "ns", true, &list, &rv), 0);
        assert_int_equal(rv, 10);
        assert_int_equal(json_array_size(list), 3);
        assert_string_equal(json_path_string(json_array_get(list, 0), "metadata.name"), "o10");
        assert_string_equal(json_path_string(json_array_get(list, 1), "metadata.name"), "o6");
        assert_string_equal(json_path_string(json_array_get(list, 2), "metadata.name"), "o7");
        json_decref(list);
        /* lost history drops the index: primed again on its next use */
        watch_cache_reset(c, 20);
        assert_int_equal(watch_cache_get(c, "pods", "ns", "o7", true, &got), -ENODATA);
        /* a list older than the retained history cannot be completed */
        assert_int_equal(watch_cache_index(c, "pods", json_array(), 19), -ERANGE);
        watch_cache_shutdown(c);
        assert_int_equal(watch_cache_index(c, "pods", json_array(), 20), -ECANCELED);
        watch_cache_unref(c);
}

/* An object the index holds is the one its event's readers share (read only); a cached read
 * hands out a copy of it, so a caller changing its copy changes neither the index nor the
 * event. */
static void test_index_shares_no_object_with_readers(void **state)
{
        struct watch_cache *c = cache_new(1, 8, 0);
        struct store_watch *w = NULL;
        struct store_event ev = { 0 };
        json_t *got = NULL;

        assert_int_equal(watch_cache_index(c, "pods", json_array(), 0), 0);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 0, NULL, &w, NULL), 0);
        publish(c, "pods", "ns", 1);
        publish(c, "configmaps", "ns", 2); /* pushes event 1 out of the ring of one */
        assert_int_equal(store_watch_next(w, 0, &ev), 1);
        assert_int_equal(watch_cache_get(c, "pods", "ns", "o1", true, &got), 0);
        assert_ptr_not_equal(got, ev.object);
        json_object_set_new(json_object_get(got, "metadata"), "name", json_string("x"));
        json_decref(got);
        assert_string_equal(json_path_string(ev.object, "metadata.name"), "o1");
        store_event_release(&ev);
        assert_int_equal(watch_cache_get(c, "pods", "ns", "o1", true, &got), 0);
        assert_string_equal(json_path_string(got, "metadata.name"), "o1");
        json_decref(got);
        store_watch_stop(w);
        watch_cache_shutdown(c);
        watch_cache_unref(c);
}

/* The filter of the last call, as it saw it: the type, and the before object's metadata.pad
 * ("" when there was no before). */
static enum store_event_type seen_type;
static char seen_before[16];

/* Wants what is deleted or has metadata.pad "keep". */
static bool wants_keep(enum store_event_type type, const json_t *before, const json_t *o)
{
        seen_type = type;
        (void) snprintf(seen_before, sizeof(seen_before), "%s",
                        before ? json_path_string(before, "metadata.pad") ?: "-" : "");
        return type == STORE_EVENT_DELETED ||
               streq(json_path_string(o, "metadata.pad") ?: "", "keep");
}

static void publish_pad(struct watch_cache *c, enum store_event_type type, uint64_t rv,
                        const char *pad)
{
        json_t *o = obj("p", rv);

        json_object_set_new(json_object_get(o, "metadata"), "pad", json_string(pad));
        watch_cache_publish(c, type, "pods", "ns", rv, o, NULL);
}

/* A filtered watcher queues and is woken only for what its filter wants; the filter sees the
 * object the index held before each change. */
static void test_filter(void **state)
{
        struct watch_cache *c = cache_new(16, 16, 1);
        struct store_watch *w = NULL, *all = NULL;
        struct store_event ev = { 0 };
        int fd;

        (void) state;
        assert_int_equal(watch_cache_index(c, "pods", json_array(), 1), 0);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 1, NULL, &w, NULL), 0);
        assert_int_equal(watch_cache_watch(c, "pods", NULL, 1, NULL, &all, NULL), 0);
        store_watch_filter(w, wants_keep);
        fd = store_watch_fd(w);
        assert_true(fd >= 0);
        assert_int_equal(store_watch_next(w, 0, &ev), 0);

        publish_pad(c, STORE_EVENT_ADDED, 2, "a");
        assert_int_equal(seen_type, STORE_EVENT_ADDED);
        assert_string_equal(seen_before, "");
        publish_pad(c, STORE_EVENT_MODIFIED, 3, "b");
        assert_string_equal(seen_before, "a");
        /* nothing wanted yet: nothing queued, the descriptor not readable */
        assert_int_equal(store_watch_next(w, 0, &ev), 0);
        {
                struct pollfd p = { .fd = fd, .events = POLLIN };

                assert_int_equal(poll(&p, 1, 0), 0);
        }
        publish_pad(c, STORE_EVENT_MODIFIED, 4, "keep");
        assert_string_equal(seen_before, "b");
        publish_pad(c, STORE_EVENT_MODIFIED, 5, "c");
        publish_pad(c, STORE_EVENT_DELETED, 6, "c");
        assert_string_equal(seen_before, "c");
        assert_int_equal(next_rv(w), 4);
        assert_int_equal(next_rv(w), 6);
        assert_int_equal(store_watch_next(w, 0, &ev), 0);
        /* an unfiltered watcher of the same resource got everything */
        for (uint64_t rv = 2; rv <= 6; rv++)
                assert_int_equal(next_rv(all), rv);
        store_watch_stop(w);
        store_watch_stop(all);
        watch_cache_unref(c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_window_edges),
                cmocka_unit_test(test_versions_with_gaps),
                cmocka_unit_test(test_filters_and_skips),
                cmocka_unit_test(test_backlog_is_not_bounded_live_is),
                cmocka_unit_test(test_bytes_bound_window_and_queue),
                cmocka_unit_test(test_readers_share_one_object_and_json),
                cmocka_unit_test(test_history_keeps_old_versions_as_json),
                cmocka_unit_test(test_watchers_outlive_shutdown),
                cmocka_unit_test(test_compact),
                cmocka_unit_test(test_history_bounded_in_time),
                cmocka_unit_test(test_published_objects_share_equal_parts),
                cmocka_unit_test(test_reset),
                cmocka_unit_test(test_index),
                cmocka_unit_test(test_index_shares_no_object_with_readers),
                cmocka_unit_test(test_filter),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
