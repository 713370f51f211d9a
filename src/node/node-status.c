/* node-status.c: builds and publishes the Node object: capacity from the host (cpus, memory,
 * the data dir's file system), allocatable, the kubelet's four conditions with its reasons and
 * messages, addresses and nodeInfo. Not here: the pods on the node (agent.c). */
#include <errno.h>
#include <ifaddrs.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "node/node-status.h"

#define KUBELET_VERSION "v1.33.0-flexlet"

int node_parse_resource_list(const char *list, json_t **ret, struct error **reterr)
{
        cleanup_free char *copy = xstrdup(list);
        cleanup_json json_t *out = json_object();
        char *save = NULL;

        for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(item, '=');
                struct quantity q;
                cleanup_error struct error *qerr = NULL;
                cleanup_free char *canon = NULL;

                if (!eq || eq == item)
                        return error_set(reterr, EINVAL,
                                         "resource list item \"%s\": expected NAME=QUANTITY", item);
                *eq = '\0';
                if (quantity_parse(eq + 1, &q, &qerr) < 0)
                        return error_set(reterr, EINVAL, "resource \"%s\": %s", item,
                                         qerr->message);
                canon = quantity_format(&q);
                json_object_set_new(out, item, json_string(canon));
        }
        *ret = TAKE_PTR(out);
        return 0;
}

static int64_t mem_total_bytes(void)
{
        FILE *f = fopen("/proc/meminfo", "re");
        char line[256];
        long long kib = 0;

        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "MemTotal: %lld kB", &kib) == 1)
                        break;
        (void) fclose(f);
        return (int64_t) kib * 1024;
}

static char *quantity_string(int64_t v, enum quantity_format fmt)
{
        struct quantity q;

        quantity_from_int64(v, fmt, &q);
        return quantity_format(&q);
}

static char *read_first_line(const char *path)
{
        FILE *f = fopen(path, "re");
        char line[256] = "";

        if (!f)
                return xstrdup("");
        if (!fgets(line, sizeof(line), f))
                line[0] = '\0';
        (void) fclose(f);
        line[strcspn(line, "\n")] = '\0';
        return xstrdup(line);
}

static char *os_image(void)
{
        FILE *f = fopen("/etc/os-release", "re");
        char line[512];

        if (!f)
                return xstrdup("Linux");
        while (fgets(line, sizeof(line), f)) {
                if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
                        char *v = line + 12;
                        v[strcspn(v, "\n")] = '\0';
                        if (*v == '"') {
                                v++;
                                v[strcspn(v, "\"")] = '\0';
                        }
                        (void) fclose(f);
                        return xstrdup(v);
                }
        }
        (void) fclose(f);
        return xstrdup("Linux");
}

/* --node-ip, set once at start before any thread reads it */
static char host_ip_override[INET_ADDRSTRLEN];

void node_set_host_ip(const char *ip)
{
        (void) snprintf(host_ip_override, sizeof(host_ip_override), "%s", ip ? ip : "");
}

void node_host_ip(char *buf, size_t len)
{
        struct ifaddrs *ifs = NULL;

        if (host_ip_override[0]) {
                (void) snprintf(buf, len, "%s", host_ip_override);
                return;
        }
        (void) snprintf(buf, len, "127.0.0.1");
        if (getifaddrs(&ifs) < 0)
                return;
        for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
                struct sockaddr_in *in = (struct sockaddr_in *) i->ifa_addr;
                if (!in || in->sin_family != AF_INET || ntohl(in->sin_addr.s_addr) >> 24 == 127)
                        continue;
                (void) inet_ntop(AF_INET, &in->sin_addr, buf, (socklen_t) len);
                break;
        }
        freeifaddrs(ifs);
}

/* K8S: the kubelet's node conditions and their steady-state reasons and messages. */
static json_t *conditions(const char *now)
{
        static const struct {
                const char *type, *status, *reason, *message;
        } c[] = {
                { "MemoryPressure", "False", "KubeletHasSufficientMemory",
                  "kubelet has sufficient memory available" },
                { "DiskPressure", "False", "KubeletHasNoDiskPressure",
                  "kubelet has no disk pressure" },
                { "PIDPressure", "False", "KubeletHasSufficientPID",
                  "kubelet has sufficient PID available" },
                { "Ready", "True", "KubeletReady", "kubelet is posting ready status" },
        };
        json_t *a = json_array();

        for (size_t i = 0; i < ARRAY_SIZE(c); i++)
                json_array_append_new(
                        a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", c[i].type, "status",
                                     c[i].status, "lastHeartbeatTime", now, "lastTransitionTime",
                                     now, "reason", c[i].reason, "message", c[i].message));
        return a;
}

int node_build(const struct node_config *cfg, json_t **ret, struct error **reterr)
{
        cleanup_json json_t *allocatable = NULL, *node = NULL;
        cleanup_free char *mem = quantity_string(mem_total_bytes(), QUANTITY_BINARY_SI);
        cleanup_free char *cpus = NULL, *disk = NULL, *osimg = os_image();
        cleanup_free char *machine_id = read_first_line("/etc/machine-id");
        cleanup_free char *boot_id = read_first_line("/proc/sys/kernel/random/boot_id");
        char hostname[256] = "", ip[64], now[32];
        struct statvfs vfs;
        struct utsname uts;
        json_t *capacity;
        const char *key;
        json_t *v;
        int r;

        cpus = xasprintf("%ld", sysconf(_SC_NPROCESSORS_ONLN));
        disk = quantity_string(statvfs(cfg->data_dir, &vfs) == 0
                                       ? (int64_t) vfs.f_blocks * (int64_t) vfs.f_frsize
                                       : 0,
                               QUANTITY_BINARY_SI);
        (void) gethostname(hostname, sizeof(hostname) - 1);
        (void) uname(&uts);
        node_host_ip(ip, sizeof(ip));
        time_format_rfc3339(time(NULL), now);

        capacity = json_pack("{s:s, s:s, s:s, s:s}", "cpu", cpus, "memory", mem, "pods", "110",
                             "ephemeral-storage", disk);
        allocatable = json_deep_copy(capacity);
        if (cfg->allocatable) {
                cleanup_json json_t *override = NULL;
                r = node_parse_resource_list(cfg->allocatable, &override, reterr);
                if (r < 0) {
                        json_decref(capacity);
                        if (reterr)
                                (void) error_wrap(reterr, "--allocatable");
                        return r;
                }
                json_object_foreach(override, key, v) {
                        json_object_set(allocatable, key, v);
                }
        }
        node = json_pack("{s:s, s:s, s:{s:s, s:{s:s, s:s, s:s}}, s:{}, "
                         "s:{s:o, s:O, s:o, s:[{s:s, s:s}, {s:s, s:s}], s:{s:{s:i}}, "
                         "s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}}}",
                         "apiVersion", "v1", "kind", "Node", "metadata", "name", cfg->node_name,
                         "labels", "kubernetes.io/hostname", cfg->node_name, "kubernetes.io/os",
                         "linux", "kubernetes.io/arch", "amd64", "spec", "status", "capacity",
                         capacity, "allocatable", allocatable, "conditions", conditions(now),
                         "addresses", "type", "InternalIP", "address", ip, "type", "Hostname",
                         "address", hostname, "daemonEndpoints", "kubeletEndpoint", "Port",
                         cfg->kubelet_port ? (int) cfg->kubelet_port : 10250, "nodeInfo",
                         "machineID", machine_id, "systemUUID", machine_id, "bootID", boot_id,
                         "kernelVersion", uts.release, "osImage", osimg, "containerRuntimeVersion",
                         "flexlet://0.1.0", "kubeletVersion", KUBELET_VERSION, "kubeProxyVersion",
                         "", "operatingSystem", "linux", "architecture", "amd64");
        if (!node)
                return error_set(reterr, EINVAL, "node object: cannot build");
        *ret = TAKE_PTR(node);
        return 0;
}

static int expect(long status, long want, const char *what, json_t *body, struct error **reterr)
{
        if (status == want)
                return 0;
        return error_set(reterr, EIO, "%s: HTTP %ld: %s", what, status,
                         json_string_value(json_object_get(body, "message")) ?: "no message");
}

int node_register(struct api_client *c, const struct node_config *cfg, struct error **reterr)
{
        cleanup_json json_t *node = NULL, *resp = NULL, *patch = NULL, *resp2 = NULL;
        cleanup_free char *body = NULL, *path = NULL, *pbody = NULL;
        long status = 0;
        int r;

        r = node_build(cfg, &node, reterr);
        if (r < 0)
                return r;
        body = json_dump_compact(node);
        r = api_client_request(c, "POST", "/api/v1/nodes", "application/json", body, strlen(body),
                               &status, &resp, reterr);
        if (r < 0)
                return r;
        if (status == 201)
                return 0;
        if (status != 409)
                return expect(status, 201, "register node", resp, reterr);
        /* Registered before: take our labels and the current status. */
        path = xasprintf("/api/v1/nodes/%s", cfg->node_name);
        patch = json_pack("{s:{s:O}}", "metadata", "labels", json_path(node, "metadata.labels"));
        pbody = json_dump_compact(patch);
        r = api_client_request(c, "PATCH", path, "application/merge-patch+json", pbody,
                               strlen(pbody), &status, &resp2, reterr);
        if (r < 0 || (r = expect(status, 200, "update node labels", resp2, reterr)) < 0)
                return r;
        json_decref(resp2);
        resp2 = NULL;
        free(path);
        free(pbody);
        json_decref(patch);
        path = xasprintf("/api/v1/nodes/%s/status", cfg->node_name);
        patch = json_pack("{s:O}", "status", json_object_get(node, "status"));
        pbody = json_dump_compact(patch);
        r = api_client_request(c, "PATCH", path, "application/merge-patch+json", pbody,
                               strlen(pbody), &status, &resp2, reterr);
        if (r < 0)
                return r;
        return expect(status, 200, "update node status", resp2, reterr);
}

int node_heartbeat(struct api_client *c, const struct node_config *cfg, struct error **reterr)
{
        static const char *const types[] = { "MemoryPressure", "DiskPressure", "PIDPressure",
                                             "Ready" };
        cleanup_json json_t *patch = NULL, *resp = NULL;
        cleanup_free char *body = NULL, *path = NULL;
        json_t *conds = json_array();
        long status = 0;
        char now[32];
        int r;

        /* Conditions merge by type (strategic merge), so only the heartbeat time moves. */
        time_format_rfc3339(time(NULL), now);
        for (size_t i = 0; i < ARRAY_SIZE(types); i++)
                json_array_append_new(
                        conds, json_pack("{s:s, s:s}", "type", types[i], "lastHeartbeatTime", now));
        patch = json_pack("{s:{s:o}}", "status", "conditions", conds);
        body = json_dump_compact(patch);
        path = xasprintf("/api/v1/nodes/%s/status", cfg->node_name);
        r = api_client_request(c, "PATCH", path, "application/strategic-merge-patch+json", body,
                               strlen(body), &status, &resp, reterr);
        if (r < 0)
                return r;
        return expect(status, 200, "update node status", resp, reterr);
}

/* metadata.ownerReferences naming the Node, or NULL while it cannot be read (upstream sets the
 * reference on a later renewal then). */
static json_t *node_owner_references(struct api_client *c, const char *node_name)
{
        cleanup_json json_t *node = NULL;
        cleanup_free char *path = xasprintf("/api/v1/nodes/%s", node_name);
        long status = 0;
        const char *uid;

        if (api_client_request(c, "GET", path, NULL, NULL, 0, &status, &node, NULL) < 0 ||
            status != 200)
                return NULL;
        uid = json_path_string(node, "metadata.uid");
        if (!uid)
                return NULL;
        return json_pack("[{s:s, s:s, s:s, s:s}]", "apiVersion", "v1", "kind", "Node", "name",
                         node_name, "uid", uid);
}

int node_lease_renew(struct api_client *c, const struct node_config *cfg, struct error **reterr)
{
        cleanup_json json_t *lease = NULL, *resp = NULL;
        cleanup_free char *path = xasprintf("/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s",
                                            NODE_LEASE_NAMESPACE, cfg->node_name);
        cleanup_free char *body = NULL;
        struct timespec ts;
        char now[40];
        long status = 0;
        json_t *meta, *spec;
        int r;

        clock_gettime(CLOCK_REALTIME, &ts);
        time_format_rfc3339_micro(&ts, now);
        r = api_client_request(c, "GET", path, NULL, NULL, 0, &status, &lease, reterr);
        if (r < 0)
                return r;
        if (status != 200 && status != 404)
                return expect(status, 200, "read node lease", lease, reterr);
        if (status == 404) {
                json_decref(lease);
                lease = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{}}", "apiVersion",
                                  "coordination.k8s.io/v1", "kind", "Lease", "metadata", "name",
                                  cfg->node_name, "namespace", NODE_LEASE_NAMESPACE, "spec");
        }
        meta = json_object_get(lease, "metadata");
        if (!json_object_get(meta, "ownerReferences")) {
                json_t *owners = node_owner_references(c, cfg->node_name);

                if (owners)
                        json_object_set_new(meta, "ownerReferences", owners);
        }
        spec = json_object_get(lease, "spec");
        if (!json_is_object(spec)) {
                spec = json_object();
                json_object_set_new(lease, "spec", spec);
        }
        json_object_set_new(spec, "holderIdentity", json_string(cfg->node_name));
        json_object_set_new(spec, "leaseDurationSeconds",
                            json_integer(NODE_LEASE_DURATION_SECONDS));
        json_object_set_new(spec, "renewTime", json_string(now));
        body = json_dump_compact(lease);
        if (status == 404) {
                cleanup_free char *collection = xasprintf(
                        "/apis/coordination.k8s.io/v1/namespaces/%s/leases", NODE_LEASE_NAMESPACE);

                r = api_client_request(c, "POST", collection, "application/json", body,
                                       strlen(body), &status, &resp, reterr);
                if (r < 0)
                        return r;
                return expect(status, 201, "create node lease", resp, reterr);
        }
        r = api_client_request(c, "PUT", path, "application/json", body, strlen(body), &status,
                               &resp, reterr);
        if (r < 0)
                return r;
        return expect(status, 200, "renew node lease", resp, reterr);
}
