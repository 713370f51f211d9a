/* store.c: the public store API. Checks arguments, dispatches to the backend behind
 * struct store_backend_ops, owns the watch cache and starts watches on it; also the helpers
 * every backend shares (stamping, encoding within the size cap, upstream error texts).
 * Persistence is the backends' business (store-sqlite.c), history the cache's (watch-cache.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "store/store-internal.h"

struct store {
        struct store_backend *backend;
        struct watch_cache *cache;
};

static const char *const event_type_names[STORE_EVENT_TYPE_MAX] = {
        [STORE_EVENT_ADDED] = "ADDED",
        [STORE_EVENT_MODIFIED] = "MODIFIED",
        [STORE_EVENT_DELETED] = "DELETED",
};

const char *store_event_type_to_string(enum store_event_type t)
{
        if ((unsigned) t >= STORE_EVENT_TYPE_MAX)
                return NULL;
        return event_type_names[t];
}

int store_event_type_from_string(const char *s)
{
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < STORE_EVENT_TYPE_MAX; i++)
                if (streq(s, event_type_names[i]))
                        return (int) i;
        return -EINVAL;
}

int store_rv_parse(const char *s, uint64_t *ret_rv)
{
        uint64_t v = 0;

        if (!s || !*s || (s[0] == '0' && s[1]))
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                if (v > (UINT64_MAX - (uint64_t) (*p - '0')) / 10)
                        return -EINVAL;
                v = v * 10 + (uint64_t) (*p - '0');
        }
        *ret_rv = v;
        return 0;
}

/* --- helpers for backends --- */

void store_object_stamp(json_t *obj, uint64_t rv, struct store_stamp_saved *saved)
{
        char buf[24];
        json_t *md = json_object_get(obj, "metadata");

        if (saved) {
                *saved = (struct store_stamp_saved){ 0 };
                if (json_is_object(md)) {
                        saved->had_metadata_object = true;
                        saved->rv = json_incref(json_object_get(md, "resourceVersion"));
                } else {
                        saved->metadata = json_incref(md);
                }
        }
        (void) snprintf(buf, sizeof(buf), "%" PRIu64, rv);
        json_object_set_new(json_object_ensure(obj, "metadata"), "resourceVersion",
                            json_string(buf));
}

void store_object_unstamp(json_t *obj, struct store_stamp_saved *saved)
{
        if (saved->had_metadata_object) {
                json_t *md = json_object_get(obj, "metadata");

                if (saved->rv)
                        json_object_set(md, "resourceVersion", saved->rv);
                else
                        json_object_del(md, "resourceVersion");
        } else if (saved->metadata) {
                json_object_set(obj, "metadata", saved->metadata);
        } else {
                json_object_del(obj, "metadata");
        }
        store_stamp_saved_release(saved);
}

void store_stamp_saved_release(struct store_stamp_saved *saved)
{
        json_decref(saved->metadata);
        json_decref(saved->rv);
        *saved = (struct store_stamp_saved){ 0 };
}

uint64_t store_object_rv(const json_t *obj)
{
        uint64_t rv;

        if (store_rv_parse(json_path_string(obj, "metadata.resourceVersion"), &rv) < 0)
                return 0;
        return rv;
}

int store_object_encode(const json_t *obj, const char *resource, const char *name, char **ret_json,
                        size_t *ret_len, struct error **reterr)
{
        char *s = json_dumps(obj, JSON_COMPACT);
        size_t len;

        if (!s)
                return error_set(reterr, EINVAL, "storing %s \"%s\": object cannot be encoded",
                                 resource, name);
        len = strlen(s);
        if (len > STORE_MAX_OBJECT_BYTES) {
                free(s);
                return error_set(reterr, E2BIG,
                                 "storing %s \"%s\": object is too large: %zu bytes, limit is %d",
                                 resource, name, len, STORE_MAX_OBJECT_BYTES);
        }
        *ret_json = s;
        *ret_len = len;
        return 0;
}

int store_object_decode(const char *json, size_t len, const char *resource, const char *name,
                        json_t **ret_obj, struct error **reterr)
{
        json_error_t jerr;
        json_t *o = json_loadb(json, len, JSON_ALLOW_NUL, &jerr);

        if (!o)
                return error_set(reterr, EIO, "reading %s \"%s\": stored object is corrupt: %s",
                                 resource, name, jerr.text);
        if (!json_is_object(o)) {
                json_decref(o);
                return error_set(reterr, EIO,
                                 "reading %s \"%s\": stored object is corrupt: not an object",
                                 resource, name);
        }
        *ret_obj = o;
        return 0;
}

int store_error_not_found(struct error **reterr, const char *resource, const char *name)
{
        /* K8S: NewNotFound → `pods "web" not found` */
        return error_set(reterr, ENOENT, "%s \"%s\" not found", resource, name);
}

int store_error_exists(struct error **reterr, const char *resource, const char *name)
{
        /* K8S: NewAlreadyExists → `pods "web" already exists` */
        return error_set(reterr, EEXIST, "%s \"%s\" already exists", resource, name);
}

int store_error_conflict(struct error **reterr, const char *resource, const char *name)
{
        /* K8S: resourceVersion mismatch on update → 409 Conflict, OptimisticLockErrorMsg */
        return error_set(reterr, ESTALE,
                         "Operation cannot be fulfilled on %s \"%s\": the object has been "
                         "modified; please apply your changes to the latest version and try again",
                         resource, name);
}

int store_error_precondition(struct error **reterr, const char *resource, const char *name,
                             uint64_t expected_rv, uint64_t stored_rv)
{
        /* K8S: storage.Preconditions.Check on delete → 409 Conflict */
        return error_set(reterr, ESTALE,
                         "Operation cannot be fulfilled on %s \"%s\": Precondition failed: "
                         "ResourceVersion in precondition: %" PRIu64
                         ", ResourceVersion in object meta: %" PRIu64,
                         resource, name, expected_rv, stored_rv);
}

/* --- the store --- */

int store_new(struct store_backend *b, const struct store_options *o, struct store **ret,
              struct error **reterr)
{
        static const struct store_options none = { 0 };
        struct watch_cache_limits limits;
        struct store *s;

        if (!o)
                o = &none;
        limits = (struct watch_cache_limits){
                .window = o->watch_window ?: STORE_WATCH_WINDOW_DEFAULT,
                .window_bytes = o->watch_window_bytes ?: STORE_WATCH_WINDOW_BYTES_DEFAULT,
                .queue_max = o->watch_queue ?: STORE_WATCH_QUEUE_DEFAULT,
                .queue_bytes = o->watch_queue_bytes ?: STORE_WATCH_QUEUE_BYTES_DEFAULT,
                .fresh_ms = STORE_WATCH_FRESH_MS,
                .fresh_min = STORE_WATCH_FRESH_MIN,
        };
        s = xcalloc(1, sizeof(*s));
        s->backend = b;
        s->cache = watch_cache_new(&limits, b->ops->current_rv(b));
        b->cache = s->cache;
        *ret = s;
        return 0;
}

int store_open_sqlite_with(const char *path, const struct store_options *o, struct store **ret,
                           struct error **reterr)
{
        struct store_backend *b;
        int r;

        if (!path || !*path)
                return error_set(reterr, EINVAL, "opening store: empty path");
        r = store_sqlite_open(path, o, &b, reterr);
        if (r < 0)
                return r;
        return store_new(b, o, ret, reterr);
}

int store_open_sqlite(const char *path, struct store **ret, struct error **reterr)
{
        return store_open_sqlite_with(path, NULL, ret, reterr);
}

int store_open_etcd(const struct store_etcd_options *eo, const struct store_options *o,
                    struct store **ret, struct error **reterr)
{
        struct store_backend *b;
        struct store *s;
        int r;

        if (!eo)
                return error_set(reterr, EINVAL, "opening store: no etcd options");
        r = store_etcd_open(eo, &b, reterr);
        if (r < 0)
                return r;
        r = store_new(b, o, &s, reterr);
        if (r < 0)
                return r;
        r = store_etcd_start(b, reterr);
        if (r < 0) {
                store_close(s);
                return r;
        }
        *ret = s;
        return 0;
}

int store_set_ttl(struct store *s, const char *resource, unsigned seconds)
{
        if (!resource || !*resource || seconds == 0)
                return -EINVAL;
        if (!s->backend->ops->set_ttl)
                return -EOPNOTSUPP;
        return s->backend->ops->set_ttl(s->backend, resource, seconds);
}

void store_end_watches(struct store *s)
{
        watch_cache_shutdown(s->cache);
}

void store_stop_retrying(struct store *s)
{
        if (s->backend->ops->stop_retrying)
                s->backend->ops->stop_retrying(s->backend);
}

size_t store_release_unused(struct store *s)
{
        return watch_cache_release_unused(s->cache);
}

struct store *store_close(struct store *s)
{
        if (!s)
                return NULL;
        /* Watchers first: they wake with -ECANCELED and keep the cache alive until stopped. */
        watch_cache_shutdown(s->cache);
        s->backend->ops->free(s->backend);
        watch_cache_unref(s->cache);
        free(s);
        return NULL;
}

uint64_t store_current_rv(struct store *s)
{
        return s->backend->ops->current_rv(s->backend);
}

static int check_key(const char *op, const char *resource, const char *name, struct error **reterr)
{
        if (!resource || !*resource)
                return error_set(reterr, EINVAL, "%s: empty resource", op);
        if (name && !*name)
                return error_set(reterr, EINVAL, "%s %s: empty name", op, resource);
        return 0;
}

static int check_object(const char *op, const char *resource, const char *name, const json_t *obj,
                        struct error **reterr)
{
        if (!json_is_object(obj))
                return error_set(reterr, EINVAL, "%s %s \"%s\": not a JSON object", op, resource,
                                 name);
        return 0;
}

int store_get(struct store *s, const char *resource, const char *ns, const char *name,
              json_t **ret_obj, struct error **reterr)
{
        int r = check_key("getting", resource, name ? name : "", reterr);

        if (r < 0)
                return r;
        return s->backend->ops->get(s->backend, resource, ns ? ns : "", name, ret_obj, reterr);
}

int store_list(struct store *s, const char *resource, const char *ns, json_t **ret_items,
               uint64_t *ret_rv, struct error **reterr)
{
        json_t *items;
        uint64_t rv;
        int r = check_key("listing", resource, NULL, reterr);

        if (r < 0)
                return r;
        r = s->backend->ops->list(s->backend, resource, ns, &items, &rv, reterr);
        if (r < 0)
                return r;
        *ret_items = items;
        if (ret_rv)
                *ret_rv = rv;
        return 0;
}

/* The cached reads' index of resource, primed from the backend when it has none (K8S: the
 * cacher's and an informer's initial list). -ECANCELED once the store is closing. */
static int cached_prime(struct store *s, const char *resource, struct error **reterr)
{
        for (int attempt = 0;; attempt++) {
                json_t *items;
                uint64_t rv;
                int r = s->backend->ops->list(s->backend, resource, NULL, &items, &rv, reterr);

                if (r < 0)
                        return r;
                /* -ERANGE: more than a window of writes landed since the list */
                r = watch_cache_index(s->cache, resource, items, rv);
                if (r != -ERANGE || attempt >= 3)
                        return r;
        }
}

/* store_get_cached and store_get_shared: a copy of the index's object, or its own. */
static int get_cached(struct store *s, const char *resource, const char *ns, const char *name,
                      bool copy, json_t **ret_obj, struct error **reterr)
{
        int r = check_key("getting", resource, name ? name : "", reterr);

        if (r < 0)
                return r;
        r = watch_cache_get(s->cache, resource, ns ? ns : "", name, copy, ret_obj);
        if (r == -ENODATA) {
                r = cached_prime(s, resource, reterr);
                if (r == -ECANCELED || r == -ERANGE)
                        return store_get(s, resource, ns, name, ret_obj, reterr);
                if (r < 0)
                        return r;
                r = watch_cache_get(s->cache, resource, ns ? ns : "", name, copy, ret_obj);
        }
        /* -ENODATA: the history was reset between the two; read the store itself */
        if (r == -ENODATA)
                return store_get(s, resource, ns, name, ret_obj, reterr);
        if (r == -ENOENT)
                return store_error_not_found(reterr, resource, name);
        return r;
}

int store_get_cached(struct store *s, const char *resource, const char *ns, const char *name,
                     json_t **ret_obj, struct error **reterr)
{
        return get_cached(s, resource, ns, name, true, ret_obj, reterr);
}

int store_get_shared(struct store *s, const char *resource, const char *ns, const char *name,
                     json_t **ret_obj, struct error **reterr)
{
        return get_cached(s, resource, ns, name, false, ret_obj, reterr);
}

/* store_list_cached and store_list_shared: copies of the index's objects, or its own. */
static int list_cached(struct store *s, const char *resource, const char *ns, bool copy,
                       json_t **ret_items, uint64_t *ret_rv, struct error **reterr)
{
        int r = check_key("listing", resource, NULL, reterr);

        if (r < 0)
                return r;
        r = watch_cache_list(s->cache, resource, ns, copy, ret_items, ret_rv);
        if (r == -ENODATA) {
                r = cached_prime(s, resource, reterr);
                if (r == -ECANCELED || r == -ERANGE)
                        return store_list(s, resource, ns, ret_items, ret_rv, reterr);
                if (r < 0)
                        return r;
                r = watch_cache_list(s->cache, resource, ns, copy, ret_items, ret_rv);
        }
        if (r == -ENODATA)
                return store_list(s, resource, ns, ret_items, ret_rv, reterr);
        return r;
}

int store_list_cached(struct store *s, const char *resource, const char *ns, json_t **ret_items,
                      uint64_t *ret_rv, struct error **reterr)
{
        return list_cached(s, resource, ns, true, ret_items, ret_rv, reterr);
}

int store_list_shared(struct store *s, const char *resource, const char *ns, json_t **ret_items,
                      uint64_t *ret_rv, struct error **reterr)
{
        return list_cached(s, resource, ns, false, ret_items, ret_rv, reterr);
}

int store_create(struct store *s, const char *resource, const char *ns, const char *name,
                 json_t *obj, struct error **reterr)
{
        int r = check_key("creating", resource, name ? name : "", reterr);

        if (r >= 0)
                r = check_object("creating", resource, name, obj, reterr);
        if (r < 0)
                return r;
        return s->backend->ops->create(s->backend, resource, ns ? ns : "", name, obj, reterr);
}

int store_update(struct store *s, const char *resource, const char *ns, const char *name,
                 json_t *obj, uint64_t expected_rv, struct error **reterr)
{
        int r = check_key("updating", resource, name ? name : "", reterr);

        if (r >= 0)
                r = check_object("updating", resource, name, obj, reterr);
        if (r < 0)
                return r;
        return s->backend->ops->update(s->backend, resource, ns ? ns : "", name, obj, expected_rv,
                                       NULL, NULL, reterr);
}

int store_update_from(struct store *s, const char *resource, const char *ns, const char *name,
                      json_t *obj, const json_t *old, json_t **ret_current, struct error **reterr)
{
        uint64_t expected_rv = store_object_rv(old);
        int r = check_key("updating", resource, name ? name : "", reterr);

        if (r >= 0)
                r = check_object("updating", resource, name, obj, reterr);
        if (r >= 0 && (!json_is_object(old) || expected_rv == 0))
                r = error_set(reterr, EINVAL,
                              "updating %s \"%s\": the object it replaces has no resourceVersion",
                              resource, name);
        if (r < 0)
                return r;
        return s->backend->ops->update(s->backend, resource, ns ? ns : "", name, obj, expected_rv,
                                       old, ret_current, reterr);
}

int store_delete(struct store *s, const char *resource, const char *ns, const char *name,
                 uint64_t expected_rv, json_t **ret_last, struct error **reterr)
{
        int r = check_key("deleting", resource, name ? name : "", reterr);

        if (r < 0)
                return r;
        return s->backend->ops->delete (s->backend, resource, ns ? ns : "", name, expected_rv,
                                        ret_last, reterr);
}

int store_watch_start(struct store *s, const char *resource, const char *ns, uint64_t from_rv,
                      struct store_watch **ret, struct error **reterr)
{
        int r = check_key("watching", resource, NULL, reterr);

        if (r < 0)
                return r;
        if (from_rv > 0)
                return watch_cache_watch(s->cache, resource, ns, from_rv, NULL, ret, reterr);

        /* K8S: a watch from resourceVersion 0 starts with a synthetic ADDED per current object.
         * The list is consistent at rv; the cache then replays whatever was published after rv
         * and skips what the list already holds, so nothing is lost or repeated. Only when more
         * than a whole window of writes lands between the two steps does the cache refuse, and
         * listing again is the cure. */
        for (int attempt = 0;; attempt++) {
                json_t *items;
                uint64_t rv;

                r = s->backend->ops->list(s->backend, resource, ns, &items, &rv, reterr);
                if (r < 0)
                        return r;
                r = watch_cache_watch(s->cache, resource, ns, rv, items, ret, reterr);
                if (r != -ERANGE || attempt >= 3)
                        return r;
        }
}
