/* informer-feed.c: the in-process feed of informer-feed.h: one list and one watch of a path,
 * from the store's cached index and watch history, read as the router, the LIST handler and
 * the watch stream read a request (api_target_parse_path, the same selector parsers and
 * object_matches), handing the store's shared objects to the informer's callbacks. What the
 * informer keeps, and when it lists again, is the informer's (client/informer.c). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/informer-feed.h"
#include "base/alloc.h"
#include "base/json.h"
#include "http/http.h"
#include "store/store.h"

/* Decodes one key or value of a query in place as the HTTP server does (libmicrohttpd turns
 * '+' into a space, then http_unescape). */
static void query_unescape(char *s)
{
        for (char *c = s; *c; c++)
                if (*c == '+')
                        *c = ' ';
        (void) http_unescape(s);
}

/* The labelSelector and fieldSelector of query (NULL: none; changed in place), unescaped as the
 * HTTP server unescapes a query and parsed as request_selectors parses them. */
static int path_selectors(const struct api_target *t, char *query, struct label_selector **ret_ls,
                          struct field_selector **ret_fs, struct error **reterr)
{
        cleanup_label_selector struct label_selector *ls = NULL;
        const char *l = "", *f = "";
        char *save = NULL;
        int r;

        for (char *p = query ? strtok_r(query, "&", &save) : NULL; p;
             p = strtok_r(NULL, "&", &save)) {
                char *value = strchr(p, '=');

                if (value) {
                        *value++ = '\0';
                        query_unescape(value);
                }
                query_unescape(p);
                if (streq(p, "labelSelector"))
                        l = value ?: "";
                else if (streq(p, "fieldSelector"))
                        f = value ?: "";
        }
        r = label_selector_parse(l, &ls, reterr);
        if (r >= 0)
                r = field_selector_parse(f, t->res->field_labels, ret_fs, reterr);
        if (r < 0)
                return r;
        *ret_ls = TAKE_PTR(ls);
        return 0;
}

/* The list's items that match, as references to the store's objects; an item without a kind
 * (K8S: list items need not carry one; events and PUTs need it) becomes a shallow copy with the
 * resource's kind: the shared object itself is never changed. */
static json_t *matching_items(const struct api_target *t, const json_t *items,
                              const struct label_selector *ls, const struct field_selector *fs)
{
        json_t *out = json_array(), *obj;
        size_t i;

        json_array_foreach(items, i, obj) {
                json_t *kinded;

                if (!object_matches(obj, ls, fs))
                        continue;
                if (json_object_get(obj, "kind")) {
                        json_array_append(out, obj);
                        continue;
                }
                kinded = json_copy(obj);
                json_object_set_new(kinded, "kind", json_string(t->res->kind));
                json_object_set_new(kinded, "apiVersion", json_string(t->res->api_version));
                json_array_append_new(out, kinded);
        }
        return out;
}

/* Hands w's events to h until cancel_fd is readable (0), h says stop (0), or the watch ends
 * (-ECANCELED). Sleeps in poll while nothing comes. */
static int deliver(struct store_watch *w, const struct label_selector *ls,
                   const struct field_selector *fs, int cancel_fd,
                   const struct informer_feed_handler *h)
{
        struct pollfd pfd[2] = { { .fd = store_watch_fd(w), .events = POLLIN },
                                 { .fd = cancel_fd, .events = POLLIN } };

        if (pfd[0].fd < 0)
                return pfd[0].fd;
        for (;;) {
                struct store_event ev;
                int r = store_watch_next(w, 0, &ev), stop = 0;

                if (r < 0)
                        return r;
                if (r == 0) {
                        /* the queue is empty and the watcher's descriptor cleared: it is
                         * readable again with the next event or the cancellation */
                        if (poll(pfd, 2, -1) < 0 && errno != EINTR)
                                return -errno;
                        if (pfd[1].revents)
                                return 0;
                        continue;
                }
                if (object_matches(ev.object, ls, fs))
                        stop = h->event(h->ud, store_event_type_to_string(ev.type), ev.object);
                store_event_release(&ev);
                if (stop)
                        return 0;
        }
}

static int feed_list_watch(const struct informer_feed *feed, const char *path, int cancel_fd,
                           const struct informer_feed_handler *h, struct error **reterr)
{
        struct store *s = feed->ud;
        cleanup_free char *buf = xstrdup(path);
        cleanup_label_selector struct label_selector *ls = NULL;
        cleanup_field_selector struct field_selector *fs = NULL;
        cleanup_json json_t *items = NULL, *matching = NULL;
        char *query = strchr(buf, '?');
        struct store_watch *w = NULL;
        struct api_target t;
        const char *ns;
        uint64_t rv;
        int r;

        if (query)
                *query++ = '\0';
        if (api_target_parse_path(buf, &t, NULL) < 0 || t.name || t.sub != API_SUB_NONE)
                return error_set(reterr, ENOENT, "feed: \"%s\": not a collection", path);
        r = path_selectors(&t, query, &ls, &fs, reterr);
        if (r < 0)
                return r;
        ns = t.res->namespaced ? t.ns : NULL;
        r = store_list_shared(s, t.res->plural, ns, &items, &rv, reterr);
        if (r < 0)
                return r;
        matching = matching_items(&t, items, ls, fs);
        h->list(h->ud, matching);
        /* K8S: the reflector watches from the list's resourceVersion: nothing lost or repeated */
        r = store_watch_start(s, t.res->plural, ns, rv, &w, reterr);
        if (r < 0)
                return r;
        r = deliver(w, ls, fs, cancel_fd, h);
        store_watch_stop(w);
        return r;
}

struct informer_feed *informer_feed_new(struct store *s)
{
        struct informer_feed *f = xmalloc(sizeof(*f));

        *f = (struct informer_feed){ .list_watch = feed_list_watch, .ud = s };
        return f;
}

struct informer_feed *informer_feed_free(struct informer_feed *f)
{
        free(f);
        return NULL;
}
