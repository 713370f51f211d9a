/* informer.c: the shared list + watch threads behind informer.h (one per identity, or feed,
 * and collection, however many informers read it), the map each keeps, and the wake-up of the
 * informers that wait for a change (each asks its predicate whether a change is news to it).
 * What a feed does on the server's side is the server's (apiserver/informer-feed.c). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/informer.h"

#define WATCH_TIMEOUT_S 60
#define RETRY_DELAY_MS  500

/* how many deletions a collection remembers (shared_coll.deleted) */
#define DELETED_KEPT 1024

/* One collection as one identity lists and watches it, shared by every informer that asks for
 * it (K8S: a SharedInformerFactory's informer): one thread, one watch, one copy of the objects,
 * however many controllers read it. */

struct shared_coll {
        struct shared_coll *next; /* in the registry while it has subscribers */
        char *key;                /* the identity (or the feed) and the path */
        char *path;
        struct api_client *client;        /* over HTTP; NULL with a feed */
        const struct informer_feed *feed; /* borrowed; NULL over HTTP */
        int cancel_fd;                    /* an eventfd: readable once stop is set */
        pthread_t thread;                 /* joined by the last subscriber's informer_stop */
        json_t *objects;                  /* key -> object */
        /* key -> the version that deleted it, for objects the watch said are gone since the
         * last list: an answer informer_store() keeps after the DELETED event came (a write
         * racing the deletion) must not bring the object back */
        json_t *deleted;
        bool synced;
        atomic_bool stop; /* written under the lock */
        struct subscriber {
                struct informer *w;
                size_t index;
                informer_relevant_fn relevant; /* NULL: every change */
        } * subs;
        size_t n_subs;
};

struct informer {
        pthread_cond_t wake; /* with the lock below */
        bool changed;
        atomic_bool stop;
        atomic_int refs; /* the owner's and informer_ref's */
        size_t n;
        struct shared_coll *colls[INFORMER_MAX_COLLECTIONS];
};

/* Guards the registry, every shared collection's objects, synced and subscribers, and every
 * informer's changed flag. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct shared_coll *registry;

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

/* Tells every subscriber to whom the change of one object from old to new (NULL: added,
 * deleted) is news. Called with the lock held. */
static void notify(struct shared_coll *c, const json_t *old, const json_t *new)
{
        for (size_t i = 0; i < c->n_subs; i++) {
                struct subscriber *s = &c->subs[i];

                if (s->w->changed || (s->relevant && !s->relevant(old, new)))
                        continue;
                s->w->changed = true;
                pthread_cond_broadcast(&s->w->wake);
        }
}

/* Tells every subscriber (a list). Called with the lock held. */
static void notify_all(struct shared_coll *c)
{
        for (size_t i = 0; i < c->n_subs; i++) {
                c->subs[i].w->changed = true;
                pthread_cond_broadcast(&c->subs[i].w->wake);
        }
}

/* Puts obj under its key unless the cache holds a newer version, or this very one (the watch
 * event of an answer informer_store() kept already): nothing changed, nobody is told; a fed
 * collection then keeps the event's object, the watch cache's, rather than the answer's copy
 * (listed: obj came from the list or the watch, not from informer_store). Called with the lock
 * held. */
static void coll_put(struct shared_coll *c, json_t *obj, bool listed)
{
        cleanup_free char *key = informer_key(obj);
        cleanup_json json_t *old = NULL;
        const json_t *have = json_object_get(c->objects, key);
        unsigned long long version = informer_object_version(obj);
        json_int_t gone = json_integer_value(json_object_get(c->deleted, key));

        if (have && informer_object_version(have) > version)
                return;
        if (have && version && informer_object_version(have) == version) {
                if (listed && c->feed && have != obj)
                        json_object_set(c->objects, key, obj);
                return;
        }
        if (!have && gone && (unsigned long long) gone >= version)
                return;
        json_object_del(c->deleted, key);
        /* the replaced object lives on until the subscribers have compared it */
        old = json_incref((json_t *) have);
        json_object_set(c->objects, key, obj);
        notify(c, old, obj);
}

static void coll_free(struct shared_coll *c)
{
        api_client_free(c->client);
        if (c->cancel_fd >= 0)
                (void) close(c->cancel_fd);
        json_decref(c->objects);
        json_decref(c->deleted);
        free(c->subs);
        free(c->key);
        free(c->path);
        free(c);
}

static int on_watch_event(void *ud, const char *type, json_t *object)
{
        struct shared_coll *c = ud;

        if (atomic_load(&c->stop))
                return 1;
        if (streq(type, "ERROR"))
                return -ESTALE;
        if (streq(type, "BOOKMARK"))
                return 0;
        pthread_mutex_lock(&lock);
        if (streq(type, "DELETED")) {
                cleanup_free char *key = informer_key(object);
                /* the cached object is the one subscribers compared last (NULL: never seen) */
                cleanup_json json_t *old = json_incref(json_object_get(c->objects, key));

                json_object_del(c->objects, key);
                /* the race they guard against lasts one write: a few recent ones are enough */
                if (json_object_size(c->deleted) >= DELETED_KEPT)
                        json_object_clear(c->deleted);
                json_object_set_new(c->deleted, key,
                                    json_integer((json_int_t) informer_object_version(object)));
                notify(c, old ?: object, NULL);
        } else {
                coll_put(c, object, true);
        }
        pthread_mutex_unlock(&lock);
        return 0;
}

/* Replaces the collection with a list's items; every subscriber is told (synced is news even
 * when the list is empty). Called with the lock held. */
static void coll_relist(struct shared_coll *c, const json_t *items)
{
        size_t i;
        json_t *obj;

        json_decref(c->objects);
        c->objects = json_object();
        json_object_clear(c->deleted);
        json_array_foreach(items, i, obj)
                coll_put(c, obj, true);
        c->synced = true;
        notify_all(c);
}

/* One list and watch over HTTP: < 0 when the list failed; 0 when the watch ended (at
 * timeoutSeconds, or failed): list again. */
static int http_list_watch(struct shared_coll *c)
{
        cleanup_json json_t *list = NULL;
        cleanup_free char *path = NULL, *kind = NULL;
        const char *list_kind, *api_version;
        long status = 0;
        size_t i;
        json_t *obj;
        int r = api_client_request(c->client, "GET", c->path, NULL, NULL, 0, &status, &list, NULL);

        if (r < 0 || status != 200)
                return r < 0 ? r : -EIO;
        list_kind = json_string_value(json_object_get(list, "kind")) ?: "";
        api_version = json_string_value(json_object_get(list, "apiVersion")) ?: "v1";
        kind = strlen(list_kind) > 4 ? xstrndup(list_kind, strlen(list_kind) - 4) : xstrdup("");
        /* K8S: list items carry no kind; events and PUTs need it (the items are our own) */
        json_array_foreach(json_object_get(list, "items"), i, obj) {
                if (!json_object_get(obj, "kind")) {
                        json_object_set_new(obj, "kind", json_string(kind));
                        json_object_set_new(obj, "apiVersion", json_string(api_version));
                }
        }
        pthread_mutex_lock(&lock);
        coll_relist(c, json_object_get(list, "items"));
        pthread_mutex_unlock(&lock);
        path = xasprintf("%s%swatch=true&resourceVersion=%s&timeoutSeconds=%d", c->path,
                         strchr(c->path, '?') ? "&" : "?",
                         json_path_string(list, "metadata.resourceVersion") ?: "0",
                         WATCH_TIMEOUT_S);
        (void) api_client_watch(c->client, path, on_watch_event, c, NULL);
        return 0;
}

static void on_feed_list(void *ud, const json_t *items)
{
        struct shared_coll *c = ud;

        pthread_mutex_lock(&lock);
        coll_relist(c, items);
        pthread_mutex_unlock(&lock);
}

/* The collection's thread: lists, then watches from the list's resourceVersion, again whenever
 * the watch ends (a fed watch ends only when it fails or is cancelled), until the last
 * subscriber is gone and stops it. */
static void *watch_main(void *arg)
{
        struct shared_coll *c = arg;
        const struct informer_feed_handler h = { .list = on_feed_list,
                                                 .event = on_watch_event,
                                                 .ud = c };
        bool again = false;

        (void) pthread_setname_np(pthread_self(), "informer");
        while (!atomic_load(&c->stop)) {
                int r = c->feed ? c->feed->list_watch(c->feed, c->path, c->cancel_fd, &h, NULL)
                                : http_list_watch(c);
                struct pollfd pfd = { .fd = c->cancel_fd, .events = POLLIN };

                if (r >= 0)
                        continue;
                /* K8S: a watcher that fell behind lists again at once; a second cancellation
                 * in a row (a source ending its watches) and any failure wait a little, or
                 * until the collection is stopped */
                again = r == -ECANCELED && !again;
                if (!again)
                        (void) poll(&pfd, 1, RETRY_DELAY_MS);
        }
        return NULL;
}

/* Everything that decides what the collection's requests may see: the effective credentials
 * and the server, then the path. A feed reads as the server itself, whoever asks: the feed and
 * the path. */
static char *coll_key(const struct api_client_options *o, const char *path)
{
        if (o->feed)
                return xasprintf("feed %p|%s", (const void *) o->feed, path);
        return xasprintf("%s|%s|%s|%p|%s|%s|%ld|%d|%s", o->server_url, o->ca_file ?: "",
                         o->token ?: "", (void *) o->token_source, o->cert_file ?: "",
                         o->key_file ?: "", o->idle_timeout_ms, o->insecure_skip_verify, path);
}

/* Subscribes w as collection index to the shared collection for o and path, making (and
 * starting) it when there is none. Called with the lock held. */
static int subscribe(struct informer *w, size_t index, const struct api_client_options *o,
                     const char *path, informer_relevant_fn relevant, struct error **reterr)
{
        cleanup_free char *key = coll_key(o, path);
        struct shared_coll *c;
        int r = 0;

        for (c = registry; c && !streq(c->key, key); c = c->next)
                ;
        if (!c) {
                c = xcalloc(1, sizeof(*c));
                c->key = TAKE_PTR(key);
                c->path = xstrdup(path);
                c->objects = json_object();
                c->deleted = json_object();
                c->feed = o->feed;
                c->cancel_fd = eventfd(0, EFD_CLOEXEC);
                if (c->cancel_fd < 0)
                        r = error_set(reterr, errno, "informer: eventfd: %s", strerror(errno));
                if (r >= 0 && !c->feed)
                        r = api_client_new(o, &c->client, reterr);
                if (r < 0) {
                        coll_free(c);
                        return r;
                }
                if (pthread_create(&c->thread, NULL, watch_main, c) != 0)
                        abort(); /* only when the process is out of resources */
                c->next = registry;
                registry = c;
        }
        c->subs = xrealloc(c->subs, (c->n_subs + 1) * sizeof(*c->subs));
        c->subs[c->n_subs++] = (struct subscriber){ w, index, relevant };
        w->colls[index] = c;
        /* a collection listed already is news to a new subscriber */
        if (c->synced)
                w->changed = true;
        return 0;
}

/* Drops w's subscriptions; a collection left without subscribers leaves the registry, is told
 * to stop (its transfer is cancelled, its feed's wait woken) and goes to ended[] (room for
 * INFORMER_MAX_COLLECTIONS), whose count is returned: the caller joins and frees them after
 * dropping the lock. Called with the lock held. */
static size_t unsubscribe(struct informer *w, struct shared_coll **ended)
{
        size_t n_ended = 0;

        for (size_t i = 0; i < w->n; i++) {
                struct shared_coll *c = w->colls[i], **p;
                size_t k = 0;

                if (!c)
                        continue;
                for (size_t j = 0; j < c->n_subs; j++)
                        if (c->subs[j].w != w)
                                c->subs[k++] = c->subs[j];
                c->n_subs = k;
                w->colls[i] = NULL;
                if (c->n_subs)
                        continue;
                for (p = &registry; *p && *p != c; p = &(*p)->next)
                        ;
                if (*p)
                        *p = c->next;
                atomic_store(&c->stop, true);
                (void) eventfd_write(c->cancel_fd, 1);
                if (c->client)
                        api_client_cancel(c->client);
                ended[n_ended++] = c;
        }
        return n_ended;
}

/* Waits for the threads of collections unsubscribe() ended, and frees them. Called without
 * the lock (their threads take it). */
static void join_ended(struct shared_coll **ended, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                (void) pthread_join(ended[i]->thread, NULL);
                coll_free(ended[i]);
        }
}

static void informer_unref(struct informer *w)
{
        if (atomic_fetch_sub(&w->refs, 1) == 1) {
                pthread_cond_destroy(&w->wake);
                free(w);
        }
}

int informer_start(const struct api_client_options *client_options,
                   const struct informer_options *o, struct informer **ret, struct error **reterr)
{
        const struct api_client_options *as = client_options->list_watch_as ?: client_options;
        struct informer *w = xcalloc(1, sizeof(*w));
        struct shared_coll *ended[INFORMER_MAX_COLLECTIONS];
        size_t n_ended = 0;
        int r = 0;

        pthread_cond_init(&w->wake, NULL);
        atomic_store(&w->refs, 1);
        while (o->paths[w->n])
                if (++w->n > INFORMER_MAX_COLLECTIONS) {
                        informer_unref(w);
                        return error_set(reterr, EINVAL, "watch: more than %d collections",
                                         INFORMER_MAX_COLLECTIONS);
                }
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < w->n && r >= 0; i++)
                r = subscribe(w, i, as, o->paths[i], o->relevant ? o->relevant[i] : NULL, reterr);
        if (r < 0)
                n_ended = unsubscribe(w, ended);
        pthread_mutex_unlock(&lock);
        if (r < 0) {
                join_ended(ended, n_ended);
                informer_unref(w);
                return r;
        }
        *ret = w;
        return 0;
}

enum informer_wake informer_wait(struct informer *w, long timeout_ms)
{
        struct timespec deadline = time_after_ms(CLOCK_REALTIME, timeout_ms);
        bool changed;

        pthread_mutex_lock(&lock);
        while (!w->changed && !atomic_load(&w->stop) &&
               pthread_cond_timedwait(&w->wake, &lock, &deadline) == 0)
                ;
        changed = w->changed;
        w->changed = false;
        pthread_mutex_unlock(&lock);
        if (atomic_load(&w->stop))
                return INFORMER_STOPPED;
        return changed ? INFORMER_CHANGED : INFORMER_TIMED_OUT;
}

bool informer_synced(struct informer *w)
{
        bool all = true;

        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < w->n; i++)
                all = all && w->colls[i] && w->colls[i]->synced;
        pthread_mutex_unlock(&lock);
        return all;
}

json_t *informer_snapshot(struct informer *w, size_t i)
{
        json_t *copy;

        pthread_mutex_lock(&lock);
        copy = i < w->n && w->colls[i] ? json_copy(w->colls[i]->objects) : json_object();
        pthread_mutex_unlock(&lock);
        return copy;
}

json_t *informer_get(struct informer *w, size_t i, const char *key)
{
        json_t *obj = NULL;

        pthread_mutex_lock(&lock);
        if (i < w->n && w->colls[i])
                obj = json_incref(json_object_get(w->colls[i]->objects, key));
        pthread_mutex_unlock(&lock);
        return obj;
}

void informer_store(struct informer *w, size_t i, const json_t *obj)
{
        json_t *copy;

        if (i >= w->n || !json_is_object(obj))
                return;
        copy = json_deep_copy(obj);
        pthread_mutex_lock(&lock);
        if (w->colls[i])
                coll_put(w->colls[i], copy, false);
        pthread_mutex_unlock(&lock);
        json_decref(copy);
}

void informer_ref(struct informer *w)
{
        atomic_fetch_add(&w->refs, 1);
}

void informer_stop(struct informer *w)
{
        struct shared_coll *ended[INFORMER_MAX_COLLECTIONS];
        size_t n_ended;

        if (!w)
                return;
        pthread_mutex_lock(&lock);
        atomic_store(&w->stop, true);
        pthread_cond_broadcast(&w->wake);
        n_ended = unsubscribe(w, ended);
        pthread_mutex_unlock(&lock);
        join_ended(ended, n_ended);
        informer_unref(w);
}
