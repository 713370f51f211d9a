/* node-ipam.c: the node IPAM controller (see node-ipam.h): the subnet bitmap (upstream's
 * cidrset) and the pass that gives every Node without a podCIDR the next free subnet. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "client/event.h"
#include "controllers/controller-loop.h"
#include "controllers/node-ipam.h"

/* K8S: the range allocator's node informer resyncs; the pass also follows every Node event */
#define PASS_PERIOD_MS (30 * 1000)

/* ------------------------------------------------------------------ pure parts */

int node_ipam_parse_cidr(const char *text, uint32_t *ret_network, unsigned *ret_prefix)
{
        const char *slash = text ? strchr(text, '/') : NULL;
        char addr[INET_ADDRSTRLEN];
        struct in_addr in;
        char *end;
        long prefix;
        uint32_t net;

        if (!slash || slash == text || (size_t) (slash - text) >= sizeof(addr))
                return -EINVAL;
        memcpy(addr, text, (size_t) (slash - text));
        addr[slash - text] = '\0';
        if (inet_pton(AF_INET, addr, &in) != 1)
                return -EINVAL;
        errno = 0;
        prefix = strtol(slash + 1, &end, 10);
        if (errno || end == slash + 1 || *end || prefix < 0 || prefix > 32 ||
            !(slash[1] >= '0' && slash[1] <= '9'))
                return -EINVAL;
        net = ntohl(in.s_addr);
        if (prefix < 32 && (net & (0xffffffffu >> prefix)))
                return -EINVAL;
        *ret_network = net;
        *ret_prefix = (unsigned) prefix;
        return 0;
}

int cidr_set_init(struct cidr_set *s, const char *cluster_cidr, unsigned node_prefix,
                  struct error **reterr)
{
        uint32_t net;
        unsigned prefix;

        memset(s, 0, sizeof(*s));
        if (node_ipam_parse_cidr(cluster_cidr, &net, &prefix) < 0)
                return error_set(reterr, EINVAL,
                                 "--cluster-cidr \"%s\": want an IPv4 network, e.g. 10.88.0.0/16",
                                 cluster_cidr ? cluster_cidr : "");
        /* K8S: cidrset.NewCIDRSet's checks, and their messages */
        if (node_prefix < prefix)
                return error_set(reterr, EINVAL,
                                 "--node-cidr-mask-size %u: subNetMaskSize is less than "
                                 "clusterMaskSize (%u)",
                                 node_prefix, prefix);
        if (node_prefix - prefix > 16)
                return error_set(reterr, EINVAL,
                                 "--node-cidr-mask-size %u: New CIDR set failed; the node CIDR "
                                 "size is too big",
                                 node_prefix);
        /* flexlet: a node's bridge takes the first address and pods need at least two more */
        if (node_prefix > 30)
                return error_set(reterr, EINVAL,
                                 "--node-cidr-mask-size %u: at most 30 (a node needs room for "
                                 "its gateway and pods)",
                                 node_prefix);
        s->base = net;
        s->prefix = prefix;
        s->node_prefix = node_prefix;
        s->n = (size_t) 1 << (node_prefix - prefix);
        s->used = xcalloc(s->n, 1);
        return 0;
}

void cidr_set_release(struct cidr_set *s)
{
        free(s->used);
        s->used = NULL;
        s->n = 0;
}

void cidr_set_clear(struct cidr_set *s)
{
        if (s->used)
                memset(s->used, 0, s->n);
}

int cidr_set_occupy(struct cidr_set *s, const char *cidr)
{
        uint64_t lo, hi, cl_lo, cl_hi, size;
        uint32_t net;
        unsigned prefix;

        if (node_ipam_parse_cidr(cidr, &net, &prefix) < 0)
                return -EINVAL;
        lo = net;
        hi = lo + ((uint64_t) 1 << (32 - prefix)) - 1;
        cl_lo = s->base;
        cl_hi = cl_lo + ((uint64_t) 1 << (32 - s->prefix)) - 1;
        if (hi < cl_lo || lo > cl_hi)
                return 0;
        if (lo < cl_lo)
                lo = cl_lo;
        if (hi > cl_hi)
                hi = cl_hi;
        /* K8S: cidrset.getIndexForIP over the overlap's first and last address */
        size = (uint64_t) 1 << (32 - s->node_prefix);
        for (uint64_t i = (lo - cl_lo) / size; i <= (hi - cl_lo) / size; i++)
                s->used[i] = 1;
        return 1;
}

int cidr_set_allocate_next(struct cidr_set *s, char out[static 20])
{
        for (size_t k = 0; k < s->n; k++) {
                size_t i = (s->next + k) % s->n;
                struct in_addr in;
                char addr[INET_ADDRSTRLEN];

                if (s->used[i])
                        continue;
                s->used[i] = 1;
                s->next = (i + 1) % s->n;
                in.s_addr = htonl(s->base + (uint32_t) (i << (32 - s->node_prefix)));
                (void) inet_ntop(AF_INET, &in, addr, sizeof(addr));
                (void) snprintf(out, 20, "%s/%u", addr, s->node_prefix);
                return 0;
        }
        return -ENOSPC;
}

/* ------------------------------------------------------------------ the controller */

struct node_ipam_controller {
        struct controller_loop loop;
        struct cidr_set set;
        char *preset_node, *preset_cidr;
        /* subnets patched onto Nodes the informer has not shown with them yet:
         * name -> {"uid", "cidr"} */
        json_t *pending;
        /* the status change last reported for a Node without a subnet: name -> {"uid", "reason"} */
        json_t *reported;
};

static const char *node_pod_cidr(const json_t *node)
{
        const char *c = json_path_string(node, "spec.podCIDR");
        const json_t *cs = json_path(node, "spec.podCIDRs");

        if (c && *c)
                return c;
        if (json_array_size(cs) && json_is_string(json_array_get(cs, 0)))
                return json_string_value(json_array_get(cs, 0));
        return NULL;
}

/* the Node called name in the informer's snapshot, or NULL */
static const json_t *node_named(const json_t *nodes, const char *name)
{
        const char *key;
        const json_t *node;

        json_object_foreach((json_t *) nodes, key, node)
                if (streq(json_path_string_or_empty(node, "metadata.name"), name))
                        return node;
        return NULL;
}

/* K8S: nodeutil.PatchNodeCIDRs */
static int patch_cidr(struct api_client *c, const char *name, const char *cidr,
                      struct error **reterr)
{
        cleanup_free char *path = xasprintf("/api/v1/nodes/%s", name);
        cleanup_json json_t *body =
                json_pack("{s:{s:s, s:[s]}}", "spec", "podCIDR", cidr, "podCIDRs", cidr);
        cleanup_free char *text = json_dump_compact(body);
        cleanup_json json_t *resp = NULL;
        long status = 0;
        int r;

        r = api_client_request(c, "PATCH", path, "application/strategic-merge-patch+json", text,
                               strlen(text), &status, &resp, reterr);
        if (r < 0)
                return r;
        if (status != 200)
                return error_set(reterr, EIO, "PATCH %s: HTTP %ld: %s", path, status,
                                 json_string_value(json_object_get(resp, "message")) ?: "");
        return 0;
}

/* K8S: controllerutil.RecordNodeStatusChange: a Normal event on the Node whose reason is the
 * status, "Node <name> status is now: <status>". Upstream's recorder folds the repeats of one
 * event into its count; here a Node's status change is posted once until its reason changes,
 * the Node gets a subnet, or it is made anew (another uid). */
static void report_status_change(struct node_ipam_controller *x, const json_t *node,
                                 const char *status)
{
        const char *name = json_path_string_or_empty(node, "metadata.name");
        const char *uid = json_path_string_or_empty(node, "metadata.uid");
        const json_t *last = json_object_get(x->reported, name);
        cleanup_json json_t *ref = NULL;
        cleanup_free char *message = NULL;
        cleanup_error struct error *err = NULL;

        if (streq(json_path_string_or_empty(last, "uid"), uid) &&
            streq(json_path_string_or_empty(last, "reason"), status))
                return;
        ref = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "v1", "kind", "Node", "metadata",
                        "name", name, "uid", uid);
        message = xasprintf("Node %s status is now: %s", name, status);
        if (api_client_event(x->loop.client, ref, "Normal", status, message, "cidrAllocator", NULL,
                             &err) < 0) {
                (void) fprintf(stderr, "node-ipam: node \"%s\": event %s: %s\n", name, status,
                               err->message);
                return;
        }
        json_object_set_new(x->reported, name,
                            json_pack("{s:s, s:s}", "uid", uid, "reason", status));
}

static void node_ipam_pass(void *ctx)
{
        struct node_ipam_controller *x = ctx;
        cleanup_json json_t *nodes = informer_snapshot(x->loop.watch, 0);
        const char *key;
        json_t *node, *p;
        void *tmp;

        /* the bitmap from the Nodes, and from what we gave that they do not show yet */
        cidr_set_clear(&x->set);
        json_object_foreach(nodes, key, node) {
                const char *cidr = node_pod_cidr(node);

                if (cidr && cidr_set_occupy(&x->set, cidr) < 0)
                        (void) fprintf(stderr,
                                       "node-ipam: node \"%s\": podCIDR \"%s\" is not an IPv4 "
                                       "network; left alone\n",
                                       json_path_string_or_empty(node, "metadata.name"), cidr);
        }
        json_object_foreach_safe(x->pending, tmp, key, p)
        {
                const json_t *n = node_named(nodes, key);

                if (!n || node_pod_cidr(n) ||
                    !streq(json_path_string_or_empty(n, "metadata.uid"),
                           json_path_string_or_empty(p, "uid")))
                        json_object_del(x->pending, key);
                else
                        (void) cidr_set_occupy(&x->set, json_path_string_or_empty(p, "cidr"));
        }
        json_object_foreach_safe(x->reported, tmp, key, p)
        {
                if (!node_named(nodes, key))
                        json_object_del(x->reported, key);
        }
        /* K8S: rangeAllocator.AllocateOrOccupyCIDR for every Node without one */
        json_object_foreach(nodes, key, node) {
                cleanup_error struct error *err = NULL;
                const char *name = json_path_string_or_empty(node, "metadata.name");
                const json_t *mine = json_object_get(x->pending, name);
                char cidr[20];

                if (node_pod_cidr(node) || json_path(node, "metadata.deletionTimestamp")) {
                        json_object_del(x->reported, name);
                        continue;
                }
                if (mine) {
                        /* patched before: patch it again (idempotent) */
                        (void) snprintf(cidr, sizeof(cidr), "%s",
                                        json_path_string_or_empty(mine, "cidr"));
                } else if (x->preset_node && streq(name, x->preset_node)) {
                        (void) snprintf(cidr, sizeof(cidr), "%s", x->preset_cidr);
                        (void) cidr_set_occupy(&x->set, cidr);
                } else if (cidr_set_allocate_next(&x->set, cidr) < 0) {
                        /* K8S: the CIDRNotAvailable status change, and this message */
                        (void) fprintf(stderr,
                                       "node-ipam: node \"%s\": failed to allocate cidr from "
                                       "cluster cidr: CIDR allocation failed; there are no "
                                       "remaining CIDRs left to allocate in the accepted range\n",
                                       name);
                        report_status_change(x, node, "CIDRNotAvailable");
                        continue;
                }
                json_object_set_new(x->pending, name,
                                    json_pack("{s:s, s:s}", "uid",
                                              json_path_string_or_empty(node, "metadata.uid"),
                                              "cidr", cidr));
                if (patch_cidr(x->loop.client, name, cidr, &err) < 0) {
                        /* K8S: CIDRAssignmentFailed; retried at the next pass */
                        (void) fprintf(stderr, "node-ipam: node \"%s\": assigning %s: %s\n", name,
                                       cidr, err->message);
                        report_status_change(x, node, "CIDRAssignmentFailed");
                        controller_loop_pass_within(&x->loop, 1000);
                        continue;
                }
                (void) fprintf(stderr, "node-ipam: node \"%s\" gets podCIDR %s\n", name, cidr);
        }
}

static void node_ipam_release(void *ctx)
{
        struct node_ipam_controller *x = ctx;

        cidr_set_release(&x->set);
        json_decref(x->pending);
        json_decref(x->reported);
        free(x->preset_node);
        free(x->preset_cidr);
        free(x);
}

int node_ipam_controller_start(const struct api_client_options *o,
                               const struct node_ipam_options *opts,
                               struct node_ipam_controller **ret, struct error **reterr)
{
        static const char *const paths[] = { "/api/v1/nodes", NULL };
        const struct controller_loop_def def = { .name = "node-ipam",
                                                 .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = node_ipam_pass,
                                                 .release = node_ipam_release };
        struct node_ipam_controller *x = xcalloc(1, sizeof(*x));
        int r;

        r = cidr_set_init(&x->set, opts->cluster_cidr,
                          opts->node_cidr_mask_size ?: NODE_IPAM_DEFAULT_MASK_SIZE, reterr);
        if (r < 0) {
                free(x);
                return r;
        }
        if (opts->preset_node && opts->preset_cidr) {
                x->preset_node = xstrdup(opts->preset_node);
                x->preset_cidr = xstrdup(opts->preset_cidr);
        }
        x->pending = json_object();
        x->reported = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                node_ipam_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct node_ipam_controller *node_ipam_controller_stop(struct node_ipam_controller *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
