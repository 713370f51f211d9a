/* route-keeper.c: the node's routes to other nodes' pods (see route-keeper.h): the pure choice
 * of routes from the Nodes, and the thread that applies it. */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "client/informer.h"
#include "node/route-keeper.h"

#define PASS_PERIOD_MS (30 * 1000)

static int by_dst(const void *a, const void *b)
{
        return strcmp(((const struct network_route *) a)->dst,
                      ((const struct network_route *) b)->dst);
}

size_t route_keeper_want(const json_t *nodes, const char *self, struct network_route **ret)
{
        struct network_route *out = NULL;
        const char *key;
        json_t *node;
        size_t n = 0;

        json_object_foreach((json_t *) nodes, key, node) {
                const char *cidr =
                        json_string_value(json_array_get(json_path(node, "spec.podCIDRs"), 0))
                                ?: json_path_string(node, "spec.podCIDR");
                const char *ip = NULL;
                const json_t *addr;
                struct in_addr in;
                char net[INET_ADDRSTRLEN];
                const char *slash;
                size_t i;

                if (streq(json_path_string_or_empty(node, "metadata.name"), self) || !cidr)
                        continue;
                json_array_foreach(json_path(node, "status.addresses"), i, addr) {
                        const char *a = json_string_value(json_object_get(addr, "address"));
                        if (!ip && a && inet_pton(AF_INET, a, &in) == 1 &&
                            streq(json_string_value(json_object_get(addr, "type")) ?: "",
                                  "InternalIP"))
                                ip = a;
                }
                slash = strchr(cidr, '/');
                if (!ip || !slash || (size_t) (slash - cidr) >= sizeof(net) ||
                    strlen(cidr) >= sizeof(out->dst))
                        continue;
                memcpy(net, cidr, (size_t) (slash - cidr));
                net[slash - cidr] = '\0';
                if (inet_pton(AF_INET, net, &in) != 1)
                        continue;
                out = xrealloc(out, (n + 1) * sizeof(*out));
                memset(&out[n], 0, sizeof(out[n]));
                (void) snprintf(out[n].dst, sizeof(out[n].dst), "%s", cidr);
                (void) snprintf(out[n].via, sizeof(out[n].via), "%s", ip);
                n++;
        }
        if (n > 1)
                qsort(out, n, sizeof(*out), by_dst);
        *ret = out;
        return n;
}

struct route_keeper {
        struct informer *watch;
        pthread_t thread;
        atomic_bool stop;
        char *node_name, *node_ip, *bridge;
        bool forwarding;
        char *last; /* the last routes applied, as text, to log changes only */
};

static char *routes_text(const struct network_route *r, size_t n)
{
        char *s = xstrdup("");

        for (size_t i = 0; i < n; i++) {
                char *t = xasprintf("%s%s%s via %s", s, i ? ", " : "", r[i].dst, r[i].via);
                free(s);
                s = t;
        }
        return s;
}

static void keeper_pass(struct route_keeper *k)
{
        cleanup_json json_t *nodes = informer_snapshot(k->watch, 0);
        cleanup_error struct error *err = NULL;
        struct network_route *want = NULL;
        size_t n = route_keeper_want(nodes, k->node_name, &want);
        char *text;

        if (n > 0 && !k->forwarding) {
                char uplink[IF_NAMESIZE];
                int r = network_ifname_of(k->node_ip, uplink);

                if (r < 0)
                        (void) fprintf(stderr,
                                       "flexlet node: routes: no interface has the node IP %s; "
                                       "other nodes' pods are unreachable\n",
                                       k->node_ip);
                else if (network_forwarding_enable(k->bridge, &err) < 0 ||
                         network_forwarding_enable(uplink, &err) < 0)
                        (void) fprintf(stderr, "flexlet node: routes: %s\n", err->message);
                else {
                        (void) fprintf(stderr,
                                       "flexlet node: routes: forwarding on for %s and %s\n",
                                       k->bridge, uplink);
                        k->forwarding = true;
                }
                error_free(TAKE_PTR(err));
        }
        if (network_routes_sync(want, n, &err) < 0)
                (void) fprintf(stderr, "flexlet node: routes: %s\n", err->message);
        text = routes_text(want, n);
        if (!k->last || !streq(text, k->last))
                (void) fprintf(stderr, "flexlet node: routes to other nodes' pods: %s\n",
                               *text ? text : "none");
        free(k->last);
        k->last = text;
        free(want);
}

static void *keeper_main(void *ud)
{
        struct route_keeper *k = ud;

        (void) pthread_setname_np(pthread_self(), "route-keeper");
        while (!atomic_load(&k->stop)) {
                if (informer_wait(k->watch, PASS_PERIOD_MS) == INFORMER_STOPPED)
                        break;
                if (atomic_load(&k->stop))
                        break;
                if (informer_synced(k->watch))
                        keeper_pass(k);
        }
        return NULL;
}

int route_keeper_start(const struct api_client_options *co, const struct route_keeper_options *o,
                       struct route_keeper **ret, struct error **reterr)
{
        static const char *const paths[] = { "/api/v1/nodes", NULL };
        const struct informer_options io = { .paths = paths };
        struct route_keeper *k = xcalloc(1, sizeof(*k));
        int r;

        r = informer_start(co, &io, &k->watch, reterr);
        if (r < 0) {
                free(k);
                return error_wrap(reterr, "routes");
        }
        k->node_name = xstrdup(o->node_name);
        k->node_ip = xstrdup(o->node_ip);
        k->bridge = xstrdup(o->bridge);
        r = pthread_create(&k->thread, NULL, keeper_main, k);
        if (r != 0) {
                informer_stop(k->watch);
                free(k->node_name);
                free(k->node_ip);
                free(k->bridge);
                free(k);
                return error_set(reterr, r, "routes: thread: %s", strerror(r));
        }
        *ret = k;
        return 0;
}

struct route_keeper *route_keeper_stop(struct route_keeper *k)
{
        if (!k)
                return NULL;
        atomic_store(&k->stop, true);
        /* wakes informer_wait; the cache lives until the thread is joined (its reference) */
        informer_ref(k->watch);
        informer_stop(k->watch);
        pthread_join(k->thread, NULL);
        informer_stop(k->watch);
        free(k->node_name);
        free(k->node_ip);
        free(k->bridge);
        free(k->last);
        free(k);
        return NULL;
}
