/* informer.c: the list + watch threads behind informer.h, the map each keeps, and the
 * wake-up of whoever waits for a change. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/informer.h"

#define WATCH_TIMEOUT_S 60
#define RETRY_DELAY_US  (500 * 1000)

struct informer_coll {
        struct informer *w;
        size_t index;
        char *path;
        struct api_client *client;
        json_t *objects; /* key -> object, guarded by w->lock */
        bool synced;
        pthread_t thread;
};

struct informer {
        pthread_mutex_t lock;
        pthread_cond_t wake;
        bool changed;
        atomic_bool stop; /* written under lock, so a callback never runs after stop */
        atomic_int refs;  /* one per thread, one for the owner */
        informer_change_fn on_change;
        void *ud;
        size_t n;
        struct informer_coll colls[INFORMER_MAX_COLLECTIONS];
};

char *informer_key(const json_t *obj)
{
        const char *ns = json_path_string(obj, "metadata.namespace");
        const char *name = json_path_string(obj, "metadata.name") ?: "";

        return ns && *ns ? xasprintf("%s/%s", ns, name) : xstrdup(name);
}

unsigned long long informer_object_version(const json_t *obj)
{
        const char *rv = json_path_string(obj, "metadata.resourceVersion");
        char *end = NULL;
        unsigned long long v;

        if (!rv || !*rv)
                return 0;
        v = strtoull(rv, &end, 10);
        return end && *end == '\0' ? v : 0;
}

/* Tells the owner, unless stopped. Called with the lock held. */
static void notify(struct informer_coll *c, const json_t *obj)
{
        struct informer *w = c->w;

        w->changed = true;
        pthread_cond_broadcast(&w->wake);
        if (w->on_change && !atomic_load(&w->stop))
                w->on_change(w->ud, c->index, obj);
}

/* Puts obj under its key unless the cache holds a newer version, or this very one (the watch
 * event of an answer informer_store() kept already): nothing changed, nobody is told. Called
 * with the lock held. */
static void coll_put(struct informer_coll *c, json_t *obj)
{
        cleanup_free char *key = informer_key(obj);
        const json_t *have = json_object_get(c->objects, key);
        unsigned long long version = informer_object_version(obj);

        if (have && (informer_object_version(have) > version ||
                     (version && informer_object_version(have) == version)))
                return;
        json_object_set(c->objects, key, obj);
        notify(c, obj);
}

static void cache_free(struct informer *w)
{
        for (size_t i = 0; i < w->n; i++) {
                api_client_free(w->colls[i].client);
                json_decref(w->colls[i].objects);
                free(w->colls[i].path);
        }
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->wake);
        free(w);
}

static void cache_unref(struct informer *w)
{
        if (atomic_fetch_sub(&w->refs, 1) == 1)
                cache_free(w);
}

static int on_watch_event(void *ud, const char *type, json_t *object)
{
        struct informer_coll *c = ud;
        struct informer *w = c->w;

        if (atomic_load(&w->stop))
                return 1;
        if (streq(type, "ERROR"))
                return -ESTALE;
        if (streq(type, "BOOKMARK"))
                return 0;
        pthread_mutex_lock(&w->lock);
        if (streq(type, "DELETED")) {
                cleanup_free char *key = informer_key(object);
                json_object_del(c->objects, key);
                notify(c, object);
        } else {
                coll_put(c, object);
        }
        pthread_mutex_unlock(&w->lock);
        return 0;
}

/* Replaces the collection with a list's items, telling the owner of the ones that went. */
static void coll_relist(struct informer_coll *c, json_t *list)
{
        const char *list_kind = json_string_value(json_object_get(list, "kind")) ?: "";
        const char *api_version = json_string_value(json_object_get(list, "apiVersion")) ?: "v1";
        cleanup_free char *kind =
                strlen(list_kind) > 4 ? xstrndup(list_kind, strlen(list_kind) - 4) : xstrdup("");
        cleanup_json json_t *old = c->objects;
        const char *key;
        size_t i;
        json_t *obj;

        c->objects = json_object();
        json_array_foreach(json_object_get(list, "items"), i, obj) {
                /* K8S: list items carry no kind; events and PUTs need it */
                if (!json_object_get(obj, "kind")) {
                        json_object_set_new(obj, "kind", json_string(kind));
                        json_object_set_new(obj, "apiVersion", json_string(api_version));
                }
                coll_put(c, obj);
        }
        json_object_foreach(old, key, obj) {
                if (!json_object_get(c->objects, key))
                        notify(c, obj);
        }
        c->synced = true;
        c->w->changed = true; /* also when the list is empty: synced is news */
        pthread_cond_broadcast(&c->w->wake);
}

static void *watch_main(void *arg)
{
        struct informer_coll *c = arg;
        struct informer *w = c->w;

        while (!atomic_load(&w->stop)) {
                cleanup_json json_t *list = NULL;
                cleanup_free char *path = NULL;
                long status = 0;

                if (api_client_request(c->client, "GET", c->path, NULL, NULL, 0, &status, &list,
                                       NULL) < 0 ||
                    status != 200) {
                        usleep(RETRY_DELAY_US);
                        continue;
                }
                pthread_mutex_lock(&w->lock);
                coll_relist(c, list);
                pthread_mutex_unlock(&w->lock);
                path = xasprintf("%s%swatch=true&resourceVersion=%s&timeoutSeconds=%d", c->path,
                                 strchr(c->path, '?') ? "&" : "?",
                                 json_path_string(list, "metadata.resourceVersion") ?: "0",
                                 WATCH_TIMEOUT_S);
                (void) api_client_watch(c->client, path, on_watch_event, c, NULL);
        }
        cache_unref(w);
        return NULL;
}

int informer_start(const struct api_client_options *client_options,
                   const struct informer_options *o, struct informer **ret, struct error **reterr)
{
        struct informer *w = xcalloc(1, sizeof(*w));
        int r;

        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->wake, NULL);
        w->on_change = o->on_change;
        w->ud = o->ud;
        for (; o->paths[w->n]; w->n++) {
                struct informer_coll *c = &w->colls[w->n];

                if (w->n == INFORMER_MAX_COLLECTIONS) {
                        cache_free(w);
                        return error_set(reterr, EINVAL, "watch: more than %d collections",
                                         INFORMER_MAX_COLLECTIONS);
                }
                c->w = w;
                c->index = w->n;
                c->path = xstrdup(o->paths[w->n]);
                c->objects = json_object();
                r = api_client_new(client_options->list_watch_as ?: client_options, &c->client,
                                   reterr);
                if (r < 0) {
                        w->n++;
                        cache_free(w);
                        return r;
                }
        }
        atomic_store(&w->refs, (int) w->n + 1);
        for (size_t i = 0; i < w->n; i++)
                if (pthread_create(&w->colls[i].thread, NULL, watch_main, &w->colls[i]) != 0 ||
                    pthread_detach(w->colls[i].thread) != 0)
                        abort(); /* only when the process is out of resources */
        *ret = w;
        return 0;
}

bool informer_wait(struct informer *w, long timeout_ms)
{
        struct timespec deadline = time_after_ms(CLOCK_REALTIME, timeout_ms);

        pthread_mutex_lock(&w->lock);
        while (!w->changed && !atomic_load(&w->stop) &&
               pthread_cond_timedwait(&w->wake, &w->lock, &deadline) == 0)
                ;
        w->changed = false;
        pthread_mutex_unlock(&w->lock);
        return !atomic_load(&w->stop);
}

bool informer_synced(struct informer *w)
{
        bool all = true;

        pthread_mutex_lock(&w->lock);
        for (size_t i = 0; i < w->n; i++)
                all = all && w->colls[i].synced;
        pthread_mutex_unlock(&w->lock);
        return all;
}

json_t *informer_snapshot(struct informer *w, size_t i)
{
        json_t *copy;

        pthread_mutex_lock(&w->lock);
        copy = i < w->n ? json_copy(w->colls[i].objects) : json_object();
        pthread_mutex_unlock(&w->lock);
        return copy;
}

json_t *informer_get(struct informer *w, size_t i, const char *key)
{
        json_t *obj;

        pthread_mutex_lock(&w->lock);
        obj = i < w->n ? json_incref(json_object_get(w->colls[i].objects, key)) : NULL;
        pthread_mutex_unlock(&w->lock);
        return obj;
}

void informer_store(struct informer *w, size_t i, const json_t *obj)
{
        json_t *copy;

        if (i >= w->n || !json_is_object(obj))
                return;
        copy = json_deep_copy(obj);
        pthread_mutex_lock(&w->lock);
        coll_put(&w->colls[i], copy);
        pthread_mutex_unlock(&w->lock);
        json_decref(copy);
}

void informer_ref(struct informer *w)
{
        atomic_fetch_add(&w->refs, 1);
}

void informer_stop(struct informer *w)
{
        if (!w)
                return;
        pthread_mutex_lock(&w->lock);
        atomic_store(&w->stop, true);
        pthread_cond_broadcast(&w->wake);
        /* the threads may be blocked waiting for events: end their transfers now */
        for (size_t i = 0; i < w->n; i++)
                if (w->colls[i].client)
                        api_client_cancel(w->colls[i].client);
        pthread_mutex_unlock(&w->lock);
        cache_unref(w);
}
