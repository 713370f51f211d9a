/* network.c: the node's pod network (see network.h): the configuration it writes, and a pod's
 * attachment: the netns bind mount, the record that lets a DEL run after a crash, ADD with a
 * DEL on every failure path, and the teardown. The plugins themselves run through cni.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "node/network/cni.h"
#include "node/network/network.h"
#include "node/runtime/runtime.h"

#define RECORD_FILE "network.json"
#define NETNS_FILE  "netns"

struct pod_network {
        char *data_dir; /* absolute */
        char *cni_path;
        char *bridge;
        struct network_cidr cidr;
        json_t *conflist;
        json_t *loopback;
};

/* ------------------------------------------------------------------ pure parts */

int network_parse_cidr(const char *s, struct network_cidr *ret, struct error **reterr)
{
        struct network_cidr c = { 0 };
        const char *slash = s ? strchr(s, '/') : NULL;
        char addr[INET_ADDRSTRLEN];
        uint32_t mask;
        char *end;
        long prefix;

        if (!slash || (size_t) (slash - s) >= sizeof(addr))
                return error_set(reterr, EINVAL, "pod CIDR \"%s\": expected an IPv4 ADDRESS/PREFIX",
                                 s ? s : "");
        memcpy(addr, s, (size_t) (slash - s));
        addr[slash - s] = '\0';
        if (inet_pton(AF_INET, addr, &c.network) != 1)
                return error_set(reterr, EINVAL, "pod CIDR \"%s\": \"%s\" is not an IPv4 address",
                                 s, addr);
        errno = 0;
        prefix = strtol(slash + 1, &end, 10);
        if (errno || end == slash + 1 || *end || prefix < 8 || prefix > 30)
                return error_set(reterr, EINVAL,
                                 "pod CIDR \"%s\": the prefix length must be 8 to 30", s);
        c.prefix = (unsigned) prefix;
        mask = 0xffffffffu << (32 - c.prefix);
        if (ntohl(c.network.s_addr) & ~mask)
                return error_set(
                        reterr, EINVAL,
                        "pod CIDR \"%s\": host bits are set (the network is %s/%u?)", s,
                        inet_ntop(AF_INET,
                                  &(struct in_addr){ htonl(ntohl(c.network.s_addr) & mask) }, addr,
                                  sizeof(addr)),
                        c.prefix);
        c.gateway.s_addr = htonl(ntohl(c.network.s_addr) + 1);
        (void) inet_ntop(AF_INET, &c.gateway, c.gateway_text, sizeof(c.gateway_text));
        (void) inet_ntop(AF_INET, &c.network, addr, sizeof(addr));
        (void) snprintf(c.text, sizeof(c.text), "%s/%u", addr, c.prefix);
        *ret = c;
        return 0;
}

json_t *network_default_conflist(const char *bridge, const struct network_cidr *cidr,
                                 const char *cluster_cidr, const char *ipam_data_dir)
{
        json_t *list;

        /* K8S: containerd's default conflist (bridge + host-local, portmap), less what routes
         * pod traffic off the node: no isGateway (it turns on ip_forward), no ipMasq, no default
         * route. host-local takes the CIDR's first host as the gateway, which the bridge has. */
        list = json_pack("{s:s, s:s, s:[{s:s, s:s, s:b, s:b, s:b, s:b, s:{s:s, s:[[{s:s, s:s}]], "
                         "s:s}}, {s:s, s:{s:b}}]}",
                         "cniVersion", "1.0.0", "name", NETWORK_NAME, "plugins", "type", "bridge",
                         "bridge", bridge, "isGateway", 0, "isDefaultGateway", 0, "ipMasq", 0,
                         "hairpinMode", 1, "ipam", "type", "host-local", "ranges", "subnet",
                         cidr->text, "gateway", cidr->gateway_text, "dataDir", ipam_data_dir,
                         "type", "portmap", "capabilities", "portMappings", 1);
        /* K8S: host-local's "routes", each with gw, as flannel's host-gw config gives pods the
         * cluster network through the node */
        if (list && cluster_cidr && !streq(cluster_cidr, cidr->text)) {
                json_t *ipam = json_object_get(json_array_get(json_object_get(list, "plugins"), 0),
                                               "ipam");
                json_object_set_new(
                        ipam, "routes",
                        json_pack("[{s:s, s:s}]", "dst", cluster_cidr, "gw", cidr->gateway_text));
        }
        return list;
}

json_t *network_loopback_conflist(void)
{
        /* K8S: go-cni's WithLoNetwork */
        return json_pack("{s:s, s:s, s:[{s:s}]}", "cniVersion", "1.0.0", "name", "cni-loopback",
                         "plugins", "type", "loopback");
}

json_t *network_port_mappings(const json_t *pod)
{
        const json_t *containers = json_path(pod, "spec.containers");
        json_t *out = json_array(), *c, *port;
        size_t i, j;

        /* K8S: the kubelet passes every container's ports (kuberuntime
         * generatePodSandboxConfig); containerd keeps those with a hostPort
         * (toCNIPortMappings), the protocol in lower case */
        json_array_foreach(containers, i, c) {
                json_array_foreach(json_object_get(c, "ports"), j, port) {
                        json_int_t host = json_integer_value(json_object_get(port, "hostPort"));
                        json_int_t cport =
                                json_integer_value(json_object_get(port, "containerPort"));
                        const char *proto =
                                json_string_value(json_object_get(port, "protocol")) ?: "TCP";
                        const char *host_ip = json_string_value(json_object_get(port, "hostIP"));
                        char lower[8];
                        json_t *m;
                        size_t k;

                        if (host <= 0 || host > 65535 || cport <= 0 || cport > 65535)
                                continue;
                        for (k = 0; proto[k] && k < sizeof(lower) - 1; k++)
                                lower[k] = (char) (proto[k] >= 'A' && proto[k] <= 'Z'
                                                           ? proto[k] - 'A' + 'a'
                                                           : proto[k]);
                        lower[k] = '\0';
                        m = json_pack("{s:I, s:I, s:s}", "hostPort", host, "containerPort", cport,
                                      "protocol", lower);
                        if (host_ip && *host_ip)
                                json_object_set_new(m, "hostIP", json_string(host_ip));
                        json_array_append_new(out, m);
                }
        }
        if (!json_array_size(out)) {
                json_decref(out);
                return NULL;
        }
        return out;
}

json_t *network_cni_args(const json_t *pod, const char *sandbox_id)
{
        json_t *a = json_array();

        /* K8S: containerd's toCNILabels */
        json_array_append_new(a, json_string("IgnoreUnknown=1"));
        json_array_append_new(a, json_sprintf("K8S_POD_NAMESPACE=%s",
                                              json_path_string(pod, "metadata.namespace") ?: ""));
        json_array_append_new(
                a, json_sprintf("K8S_POD_NAME=%s", json_path_string(pod, "metadata.name") ?: ""));
        json_array_append_new(a, json_sprintf("K8S_POD_INFRA_CONTAINER_ID=%s", sandbox_id));
        json_array_append_new(
                a, json_sprintf("K8S_POD_UID=%s", json_path_string(pod, "metadata.uid") ?: ""));
        return a;
}

/* ------------------------------------------------------------------ the node's network */

int pod_network_open(const struct network_options *o, struct pod_network **ret,
                     struct error **reterr)
{
        struct pod_network *pn;
        cleanup_free char *dir = NULL, *ipam = NULL;
        char abs[PATH_MAX];
        int dfd, r;

        if (!realpath(o->data_dir, abs))
                return error_set(reterr, errno, "pod network: data dir \"%s\": %s", o->data_dir,
                                 strerror(errno));
        pn = xcalloc(1, sizeof(*pn));
        pn->data_dir = xstrdup(abs);
        pn->cni_path = xstrdup(o->cni_path ?: NETWORK_DEFAULT_CNI_PATH);
        pn->bridge = xstrdup(o->bridge ?: NETWORK_DEFAULT_BRIDGE);
        r = network_parse_cidr(o->pod_cidr ?: NETWORK_DEFAULT_POD_CIDR, &pn->cidr, reterr);
        if (r < 0)
                goto fail;
        ipam = xasprintf("%s/cni/networks", pn->data_dir);
        dir = xasprintf("%s/cni/net.d", pn->data_dir);
        if ((r = fs_mkdir_p(ipam, 0700)) < 0 || (r = fs_mkdir_p(dir, 0755)) < 0) {
                error_set(reterr, -r, "pod network: create \"%s/cni\": %s", pn->data_dir,
                          strerror(-r));
                goto fail;
        }
        if (o->cluster_cidr) {
                struct network_cidr cluster;
                r = network_parse_cidr(o->cluster_cidr, &cluster, reterr);
                if (r < 0) {
                        error_wrap(reterr, "cluster CIDR");
                        goto fail;
                }
        }
        pn->conflist = network_default_conflist(pn->bridge, &pn->cidr, o->cluster_cidr, ipam);
        pn->loopback = network_loopback_conflist();
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                r = error_set(reterr, errno, "pod network: open \"%s\": %s", dir, strerror(errno));
                goto fail;
        }
        r = fs_write_json_atomic(dfd, NETWORK_CONFLIST_FILE, pn->conflist);
        close(dfd);
        if (r < 0) {
                error_set(reterr, -r, "pod network: write \"%s/%s\": %s", dir,
                          NETWORK_CONFLIST_FILE, strerror(-r));
                goto fail;
        }
        r = network_bridge_ensure(pn->bridge, &pn->cidr.gateway, pn->cidr.prefix, reterr);
        if (r < 0) {
                error_wrap(reterr, "pod network");
                goto fail;
        }
        *ret = pn;
        return 0;
fail:
        pod_network_free(pn);
        return r;
}

struct pod_network *pod_network_free(struct pod_network *pn)
{
        if (pn) {
                json_decref(pn->conflist);
                json_decref(pn->loopback);
                free(pn->data_dir);
                free(pn->cni_path);
                free(pn->bridge);
                free(pn);
        }
        return NULL;
}

const char *pod_network_gateway(const struct pod_network *pn)
{
        return pn->cidr.gateway_text;
}

const char *pod_network_bridge(const struct pod_network *pn)
{
        return pn->bridge;
}

/* ------------------------------------------------------------------ a pod's attachment */

/* K8S: a sandbox id, 64 hex digits, fixed per pod: each new sandbox of the pod is attached only
 * after the earlier one's DEL */
static void sandbox_id(const char *uid, char out[static 65])
{
        cleanup_free char *key = xasprintf("%s/sandbox", uid ? uid : "");
        unsigned char digest[32];

        if (gnutls_hash_fast(GNUTLS_DIG_SHA256, key, strlen(key), digest) < 0)
                abort(); /* SHA-256 is always available */
        for (size_t i = 0; i < sizeof(digest); i++)
                (void) snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

/* The inode of the network namespace mounted at path, or 0 when nothing is mounted there. */
static ino_t mounted_netns(const char *path)
{
        struct stat st;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        unsigned long ino = 0;

        if (fd < 0)
                return 0;
        /* a namespace file lives on nsfs, the placeholder file on the data dir's filesystem:
         * compare the device with a namespace file we know */
        if (fstat(fd, &st) == 0) {
                struct stat self;
                if (stat("/proc/self/ns/net", &self) == 0 && st.st_dev == self.st_dev)
                        ino = (unsigned long) st.st_ino;
        }
        close(fd);
        return (ino_t) ino;
}

static const char *const *strv_of(const json_t *a, const char **buf, size_t max)
{
        size_t i, n = 0;
        json_t *v;

        json_array_foreach(a, i, v) {
                if (n + 1 < max && json_is_string(v))
                        buf[n++] = json_string_value(v);
        }
        buf[n] = NULL;
        return buf;
}

/* DEL of both lists from a record; the netns path only while it is mounted. */
static int record_del(const char *cni_path, const json_t *rec, const char *netns_path,
                      struct error **reterr)
{
        const char *args[16];
        bool mounted = mounted_netns(netns_path) != 0;
        const char *netns = mounted ? netns_path : "";
        const json_t *results = json_object_get(rec, "results");
        struct cni_attachment a = {
                .container_id = json_string_value(json_object_get(rec, "containerId")),
                .netns = netns,
                .args = strv_of(json_object_get(rec, "args"), args, ARRAY_SIZE(args)),
                .capabilities = json_object_get(rec, "capabilities"),
        };
        int r;

        a.ifname = "eth0";
        r = cni_list_del(cni_path, json_object_get(rec, "conflist"), &a,
                         json_object_get(results, "eth0"), reterr);
        if (r < 0)
                return r;
        a.ifname = "lo";
        a.capabilities = NULL;
        return cni_list_del(cni_path, json_object_get(rec, "loopback"), &a,
                            json_object_get(results, "lo"), reterr);
}

int pod_network_detach(const struct pod_network *pn, const char *pod_dir, struct error **reterr)
{
        cleanup_free char *dir = xasprintf("%s/network", pod_dir);
        cleanup_free char *netns = xasprintf("%s/%s", dir, NETNS_FILE);
        cleanup_json json_t *rec = NULL;
        const char *cni_path;
        int dfd, r;

        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 && errno == ENOENT)
                return 0;
        if (dfd < 0)
                return error_set(reterr, errno, "tear down the pod network: open \"%s\": %s", dir,
                                 strerror(errno));
        r = fs_read_json_at(dfd, RECORD_FILE, &rec);
        close(dfd);
        if (r < 0 && r != -ENOENT && r != -EBADMSG)
                return error_set(reterr, -r, "tear down the pod network: read \"%s/%s\": %s", dir,
                                 RECORD_FILE, strerror(-r));
        if (rec) {
                /* a record that does not parse was never complete: its ADD did not start */
                cni_path = json_string_value(json_object_get(rec, "cniPath"));
                if (!cni_path)
                        cni_path = pn ? pn->cni_path : NETWORK_DEFAULT_CNI_PATH;
                r = record_del(cni_path, rec, netns, reterr);
                if (r < 0)
                        return error_wrap(reterr, "failed to destroy network for sandbox \"%s\"",
                                          json_string_value(json_object_get(rec, "containerId"))
                                                  ?: "");
        }
        /* K8S: containerd removes the netns after the DEL */
        while (mounted_netns(netns) && umount2(netns, MNT_DETACH) == 0)
                ;
        if (mounted_netns(netns))
                return error_set(reterr, EBUSY, "tear down the pod network: unmount \"%s\": %s",
                                 netns, strerror(errno));
        r = fs_remove_tree(dir);
        if (r < 0)
                return error_set(reterr, -r, "tear down the pod network: remove \"%s\": %s", dir,
                                 strerror(-r));
        return 0;
}

/* The pod's IP from a record's eth0 result; NULL when there is none. */
static char *record_pod_ip(const json_t *rec)
{
        const json_t *res = json_object_get(json_object_get(rec, "results"), "eth0");
        cleanup_free char *text = res ? json_dumps(res, JSON_COMPACT) : NULL;
        struct cni_result r;
        const char *ips[2];
        char *ip = NULL;

        if (!text || cni_result_parse(text, strlen(text), &r, NULL) < 0)
                return NULL;
        if (cni_result_pod_ips(&r, "eth0", ips, 2) > 0)
                ip = xstrdup(ips[0]);
        cni_result_release(&r);
        return ip;
}

static int attach_fail(const struct pod_network *pn, const char *pod_dir, int r,
                       struct error **reterr)
{
        cleanup_error struct error *derr = NULL;

        /* K8S: the specification requires a DEL after a failed ADD; what it leaves (an
         * unmountable netns) is retried by the next attach or the teardown */
        if (pod_network_detach(pn, pod_dir, &derr) < 0 && reterr && *reterr) {
                char *m = xasprintf("%s; undoing it: %s", (*reterr)->message, derr->message);
                free((*reterr)->message);
                (*reterr)->message = m;
        }
        return r;
}

int pod_network_attach(const struct pod_network *pn, const char *pod_dir, const char *sandbox_dir,
                       const json_t *pod, char **ret_ip, struct error **reterr)
{
        cleanup_free char *dir = xasprintf("%s/network", pod_dir);
        cleanup_free char *netns = xasprintf("%s/%s", dir, NETNS_FILE);
        cleanup_json json_t *rec = NULL;
        struct cni_result lo = { 0 }, eth = { 0 };
        const char *args[16];
        struct stat st;
        char id[65], fdpath[32];
        int dfd = -1, nsfd = -1, fd, r;
        ino_t have;

        r = runtime_sandbox_netns_fd(sandbox_dir, &nsfd, reterr);
        if (r < 0)
                return error_wrap(reterr, "set up the pod network");
        if (fstat(nsfd, &st) < 0) {
                r = error_set(reterr, errno, "set up the pod network: %s", strerror(errno));
                close(nsfd);
                return r;
        }
        have = mounted_netns(netns);
        if (have == st.st_ino) {
                /* already attached to this very namespace: the record says the rest */
                close(nsfd);
                dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (dfd >= 0) {
                        (void) fs_read_json_at(dfd, RECORD_FILE, &rec);
                        close(dfd);
                }
                *ret_ip = record_pod_ip(rec);
                if (*ret_ip)
                        return 0;
                json_decref(TAKE_PTR(rec));
                /* mounted but its ADD never finished: start over */
                r = runtime_sandbox_netns_fd(sandbox_dir, &nsfd, reterr);
                if (r < 0)
                        return error_wrap(reterr, "set up the pod network");
        }
        /* an earlier sandbox's attachment, or a half-made one: gone first */
        r = pod_network_detach(pn, pod_dir, reterr);
        if (r < 0) {
                close(nsfd);
                return r;
        }
        sandbox_id(json_path_string(pod, "metadata.uid"), id);
        rec = json_pack("{s:s, s:s, s:s, s:o, s:O, s:O}", "containerId", id, "netns", netns,
                        "cniPath", pn->cni_path, "args", network_cni_args(pod, id), "conflist",
                        pn->conflist, "loopback", pn->loopback);
        {
                json_t *pm = network_port_mappings(pod);
                json_object_set_new(rec, "capabilities",
                                    pm ? json_pack("{s:o}", "portMappings", pm) : json_object());
        }
        if ((r = fs_mkdir_p(dir, 0700)) < 0) {
                close(nsfd);
                return error_set(reterr, -r, "set up the pod network: create \"%s\": %s", dir,
                                 strerror(-r));
        }
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                r = error_set(reterr, errno, "set up the pod network: open \"%s\": %s", dir,
                              strerror(errno));
                close(nsfd);
                return r;
        }
        /* the record first: a crash from here on leaves what a DEL needs */
        r = fs_write_json_atomic(dfd, RECORD_FILE, rec);
        if (r < 0) {
                close(dfd);
                close(nsfd);
                return attach_fail(pn, pod_dir,
                                   error_set(reterr, -r,
                                             "set up the pod network: write \"%s/%s\": %s", dir,
                                             RECORD_FILE, strerror(-r)),
                                   reterr);
        }
        fd = openat(dfd, NETNS_FILE, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0444);
        if (fd >= 0)
                close(fd);
        (void) snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", nsfd);
        if (fd < 0 || mount(fdpath, netns, NULL, MS_BIND, NULL) < 0) {
                r = error_set(reterr, errno,
                              "set up the pod network: mount the netns at \"%s\": %s", netns,
                              strerror(errno));
                close(dfd);
                close(nsfd);
                return attach_fail(pn, pod_dir, r, reterr);
        }
        close(nsfd);
        {
                struct cni_attachment a = {
                        .container_id = id,
                        .netns = netns,
                        .ifname = "lo",
                        .args = strv_of(json_object_get(rec, "args"), args, ARRAY_SIZE(args)),
                };
                r = cni_list_add(pn->cni_path, pn->loopback, &a, &lo, reterr);
                if (r >= 0) {
                        a.ifname = "eth0";
                        a.capabilities = json_object_get(rec, "capabilities");
                        r = cni_list_add(pn->cni_path, pn->conflist, &a, &eth, reterr);
                }
        }
        if (r >= 0) {
                json_t *results = json_pack("{s:O, s:O}", "lo", lo.json, "eth0", eth.json);
                json_object_set_new(rec, "results", results);
                r = fs_write_json_atomic(dfd, RECORD_FILE, rec);
                if (r < 0)
                        error_set(reterr, -r, "set up the pod network: write \"%s/%s\": %s", dir,
                                  RECORD_FILE, strerror(-r));
        } else {
                /* K8S: containerd's message */
                error_wrap(reterr, "failed to setup network for sandbox \"%s\"", id);
        }
        close(dfd);
        if (r >= 0) {
                const char *ips[2];
                if (cni_result_pod_ips(&eth, "eth0", ips, 2) == 0)
                        r = error_set(
                                reterr, EBADMSG,
                                "failed to setup network for sandbox \"%s\": the result has no "
                                "IP on eth0",
                                id);
                else
                        *ret_ip = xstrdup(ips[0]);
        }
        cni_result_release(&lo);
        cni_result_release(&eth);
        if (r < 0)
                return attach_fail(pn, pod_dir, r, reterr);
        return 0;
}
