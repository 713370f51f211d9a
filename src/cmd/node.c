/* node.c: `flexlet node`, a node agent joining a cluster run elsewhere: the TLS bootstrap with
 * the join token (node/bootstrap.h), the Node registered with its own client certificate, a
 * serving certificate for its kubelet endpoint, then the same agent serve runs, as
 * system:node:NAME, against the given API servers (failing over between them), until
 * SIGINT/SIGTERM. */
#include <arpa/inet.h>
#include <ctype.h>
#include <net/if.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/field-error.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "client/client.h"
#include "cmd/cmd.h"
#include "cmd/flags.h"
#include "node/agent.h"
#include "node/bootstrap.h"
#include "node/network/network.h"
#include "node/node-status.h"
#include "node/route-keeper.h"

struct node_flags {
        const char *servers;
        const char *token_file;
        const char *data_dir;
        const char *node_name;
        const char *cgroup_root;
        const char *kubelet_listen;
        const char *allocatable;
        const char *feature_gates;
        const char *node_ip;
        const char *pod_bridge;
        const char *cluster_cidr;
        const char *cni_path;
        struct node_agent_flags agent;
};

static void node_usage(FILE *f)
{
        (void) fprintf(
                f,
                "usage: flexlet node --server URL[,URL...] --token-file FILE [flags]\n\n"
                "  --server URLS           the cluster's API servers (https://HOST:PORT, comma-\n"
                "                          separated); the next is used when one stops answering\n"
                "  --token-file FILE       the join token (a server's DATA_DIR/node-token); read\n"
                "                          only while the node has no certificate of its own\n"
                "  --data-dir DIR          credentials, pods, volumes (default /var/lib/flexlet-node)\n"
                "  --node-name NAME        this node's name (default: the host name)\n"
                "  --cgroup-root NAME      parent of every cgroup the node makes (default flexlet)\n"
                "  --kubelet-listen H:P    the kubelet endpoint (default 0.0.0.0:10250)\n"
                "  --allocatable LIST      node allocatable override, e.g. cpu=4,memory=4Gi\n"
                "  --feature-gates LIST    Name=true|false,...\n"
                "  --node-ip IP            the node's InternalIP (IPv4; default: the first non-\n"
                "                          loopback address); other nodes route to its pods there\n"
                "  --pod-bridge NAME       the pods' bridge (default flx-<hash of the node name>)\n"
                "  --cluster-cidr CIDR     every node's pods, routed via the bridge from each pod\n"
                "                          (default " NETWORK_DEFAULT_POD_CIDR
                ", the servers' default)\n"
                "  --cni-path DIR          the CNI plugins (default " NETWORK_DEFAULT_CNI_PATH
                ")\n" NODE_FLAG_USAGE);
}

static int parse_flags(int argc, char **argv, struct node_flags *f)
{
        static const struct option options[] = {
                { "server", required_argument, NULL, 's' },
                { "token-file", required_argument, NULL, 't' },
                { "data-dir", required_argument, NULL, 'd' },
                { "node-name", required_argument, NULL, 'n' },
                { "cgroup-root", required_argument, NULL, 'c' },
                { "kubelet-listen", required_argument, NULL, 'k' },
                { "allocatable", required_argument, NULL, 'a' },
                { "feature-gates", required_argument, NULL, 'f' },
                { "node-ip", required_argument, NULL, 'i' },
                { "pod-bridge", required_argument, NULL, 'b' },
                { "cluster-cidr", required_argument, NULL, 'C' },
                { "cni-path", required_argument, NULL, 'P' },
                NODE_FLAG_OPTIONS,
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                int node = parse_node_flag("node", c, optarg, &f->agent);

                if (node < 0)
                        return -EINVAL;
                if (node > 0)
                        continue;
                switch (c) {
                case 's':
                        f->servers = optarg;
                        break;
                case 't':
                        f->token_file = optarg;
                        break;
                case 'd':
                        f->data_dir = optarg;
                        break;
                case 'n':
                        f->node_name = optarg;
                        break;
                case 'c':
                        f->cgroup_root = optarg;
                        break;
                case 'k':
                        f->kubelet_listen = optarg;
                        break;
                case 'a':
                        f->allocatable = optarg;
                        break;
                case 'f':
                        f->feature_gates = optarg;
                        break;
                case 'i':
                        f->node_ip = optarg;
                        break;
                case 'b':
                        f->pod_bridge = optarg;
                        break;
                case 'C':
                        f->cluster_cidr = optarg;
                        break;
                case 'P':
                        f->cni_path = optarg;
                        break;
                case 'h':
                        node_usage(stdout);
                        exit(0);
                default:
                        node_usage(stderr);
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                (void) fprintf(stderr, "flexlet node: unexpected argument \"%s\"\n", argv[optind]);
                return -EINVAL;
        }
        if (check_node_flags("node", &f->agent) < 0)
                return -EINVAL;
        if (!f->servers || !f->token_file) {
                (void) fprintf(stderr, "flexlet node: --server and --token-file are required\n");
                return -EINVAL;
        }
        {
                cleanup_free char *copy = xstrdup(f->servers);
                char *save = NULL;

                for (char *u = strtok_r(copy, ",", &save); u; u = strtok_r(NULL, ",", &save))
                        if (strncmp(u, "https://", 8) != 0) {
                                (void) fprintf(stderr,
                                               "flexlet node: --server: \"%s\": want https://\n",
                                               u);
                                return -EINVAL;
                        }
        }
        if (f->node_ip) {
                struct in_addr a;

                if (inet_pton(AF_INET, f->node_ip, &a) != 1 || (ntohl(a.s_addr) >> 24) == 127 ||
                    a.s_addr == 0) {
                        (void) fprintf(stderr,
                                       "flexlet node: --node-ip \"%s\": want a non-loopback "
                                       "IPv4 address\n",
                                       f->node_ip);
                        return -EINVAL;
                }
        }
        if (f->pod_bridge && (!*f->pod_bridge || strlen(f->pod_bridge) >= IFNAMSIZ ||
                              strchr(f->pod_bridge, '/') || strchr(f->pod_bridge, ' '))) {
                (void) fprintf(stderr,
                               "flexlet node: --pod-bridge \"%s\": want an interface name of 1 "
                               "to %d characters\n",
                               f->pod_bridge, IFNAMSIZ - 1);
                return -EINVAL;
        }
        {
                const char *colon = strrchr(f->kubelet_listen, ':');
                char *end;
                unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;

                if (!colon || !colon[1] || *end || port == 0 || port > 65535) {
                        (void) fprintf(stderr,
                                       "flexlet node: --kubelet-listen \"%s\": want HOST:PORT "
                                       "with a port from 1 to 65535\n",
                                       f->kubelet_listen);
                        return -EINVAL;
                }
        }
        return 0;
}

/* A host name that can be a DNS SAN: letters, digits, '-' and '.', 1 to 253 of them. */
static bool dns_name_ok(const char *s)
{
        size_t n = strlen(s);

        if (n == 0 || n > 253)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isalnum((unsigned char) s[i]) && s[i] != '-' && s[i] != '.')
                        return false;
        return true;
}

/* The default bridge of a node: "flx-" and 8 hex digits of the node name's FNV-1a hash, so two
 * nodes on one machine do not share one (the kernel's limit is 15 characters). */
static void default_bridge(const char *node, char out[static IFNAMSIZ])
{
        uint32_t h = 2166136261u;

        for (const char *c = node; *c; c++)
                h = (h ^ (unsigned char) *c) * 16777619u;
        (void) snprintf(out, IFNAMSIZ, "flx-%08x", h);
}

/* Waits until the node IPAM controller gave the Node a spec.podCIDR (K8S: the kubelet waits
 * for it before the network is ready), or a shutdown signal came (-EINTR). */
static int wait_pod_cidr(const struct api_client_options *co, const char *node,
                         const sigset_t *sigs, char out[static 20], struct error **reterr)
{
        cleanup_api_client struct api_client *c = NULL;
        cleanup_free char *path = xasprintf("/api/v1/nodes/%s", node);
        bool said = false;
        int r;

        r = api_client_new(co, &c, reterr);
        if (r < 0)
                return r;
        for (;;) {
                cleanup_json json_t *n = NULL;
                cleanup_error struct error *err = NULL;
                const struct timespec second = { .tv_sec = 1 };
                const char *cidr = NULL;

                if (api_client_get_json(c, path, &n, &err) >= 0)
                        cidr = json_string_value(json_array_get(json_path(n, "spec.podCIDRs"), 0))
                                       ?: json_path_string(n, "spec.podCIDR");
                if (cidr && *cidr) {
                        if (strlen(cidr) >= 20)
                                return error_set(reterr, EINVAL,
                                                 "the Node's spec.podCIDR \"%s\" is not IPv4",
                                                 cidr);
                        (void) snprintf(out, 20, "%s", cidr);
                        return 0;
                }
                if (!said) {
                        (void) fprintf(stderr,
                                       "flexlet node: waiting for the node IPAM controller to give "
                                       "node %s a spec.podCIDR%s%s\n",
                                       node, err ? ": " : "", err ? err->message : "");
                        said = true;
                }
                if (sigtimedwait(sigs, NULL, &second) > 0)
                        return -EINTR;
        }
}

int cmd_node(int argc, char **argv)
{
        struct node_flags f = { .cluster_cidr = NETWORK_DEFAULT_POD_CIDR,
                                .data_dir = "/var/lib/flexlet-node",
                                .cgroup_root = "flexlet",
                                .kubelet_listen = "0.0.0.0:10250",
                                .agent = NODE_AGENT_FLAGS_DEFAULT };
        cleanup_error struct error *err = NULL;
        cleanup_free char *node_name_default = NULL, *ca_file = NULL, *cert_file = NULL;
        cleanup_free char *key_file = NULL, *serving_cert = NULL, *serving_key = NULL;
        cleanup_free char *ca_pem = NULL;
        char hostname[HOST_NAME_MAX + 1] = "localhost", ip[64];
        struct node_agent *agent = NULL;
        struct pod_network *network = NULL;
        struct route_keeper *routes = NULL;
        char bridge[IFNAMSIZ], pod_cidr[20];
        sigset_t sigs;
        int sig, r;

        if (parse_flags(argc, argv, &f) < 0)
                return 2;
        sigemptyset(&sigs);
        sigaddset(&sigs, SIGINT);
        sigaddset(&sigs, SIGTERM);
        (void) pthread_sigmask(SIG_BLOCK, &sigs, NULL);
        (void) signal(SIGPIPE, SIG_IGN);
        (void) gethostname(hostname, sizeof(hostname));
        if (!f.node_name) {
                node_name_default = xstrdup(hostname);
                for (char *c = node_name_default; *c; c++)
                        *c = (char) tolower((unsigned char) *c);
                f.node_name = node_name_default;
        }
        {
                /* K8S: the node's name is a DNS subdomain (it names the Node) */
                struct field_error_list errs;

                field_error_list_init(&errs);
                if (validate_dns1123_subdomain(f.node_name, "metadata.name", &errs)) {
                        cleanup_free char *why = field_error_list_string(&errs);
                        (void) fprintf(stderr, "flexlet node: node name \"%s\": %s\n", f.node_name,
                                       why);
                        field_error_list_release(&errs);
                        return 2;
                }
                field_error_list_release(&errs);
        }
        if (mkdir(f.data_dir, 0700) < 0 && errno != EEXIST) {
                (void) fprintf(stderr, "flexlet node: data dir \"%s\": %s\n", f.data_dir,
                               strerror(errno));
                return 1;
        }

        const struct bootstrap_options bo = { .servers = f.servers,
                                              .token_file = f.token_file,
                                              .data_dir = f.data_dir,
                                              .node_name = f.node_name };
        r = bootstrap_client_cert(&bo, &err);
        if (r < 0) {
                (void) fprintf(stderr, "flexlet node: joining: %s\n", err->message);
                return 1;
        }
        (void) fprintf(stderr, "flexlet node: %s client certificate for system:node:%s\n",
                       r > 0 ? "obtained a" : "using the stored", f.node_name);
        ca_file = xasprintf("%s/pki/" BOOTSTRAP_CA_FILE, f.data_dir);
        cert_file = xasprintf("%s/pki/" BOOTSTRAP_CLIENT_CERT_FILE, f.data_dir);
        key_file = xasprintf("%s/pki/" BOOTSTRAP_CLIENT_KEY_FILE, f.data_dir);

        /* The Node first, so that the serving certificate's approver sees its addresses. */
        if (f.node_ip)
                node_set_host_ip(f.node_ip);
        node_host_ip(ip, sizeof(ip));
        {
                const struct api_client_options co = { .server_url = f.servers,
                                                       .ca_file = ca_file,
                                                       .cert_file = cert_file,
                                                       .key_file = key_file };
                const struct node_config cfg = { .node_name = f.node_name,
                                                 .data_dir = f.data_dir,
                                                 .allocatable = f.allocatable,
                                                 .kubelet_port = (unsigned) strtoul(
                                                         strrchr(f.kubelet_listen, ':') + 1, NULL,
                                                         10) };
                cleanup_api_client struct api_client *c = NULL;

                r = api_client_new(&co, &c, &err);
                if (r >= 0)
                        r = node_register(c, &cfg, &err);
                if (r < 0) {
                        (void) fprintf(stderr, "flexlet node: registering: %s\n", err->message);
                        return 1;
                }
        }
        {
                const char *dns[] = { dns_name_ok(hostname) ? hostname : NULL, NULL };
                const char *ips[] = { ip, NULL };

                r = bootstrap_serving_cert(&bo, dns, ips, &serving_cert, &serving_key, &err);
                if (r < 0) {
                        (void) fprintf(stderr, "flexlet node: kubelet serving certificate: %s\n",
                                       err->message);
                        return 1;
                }
        }
        {
                size_t n = 0;

                r = fs_read_file_at(AT_FDCWD, ca_file, 64 * 1024, &ca_pem, &n);
                if (r < 0) {
                        (void) fprintf(stderr, "flexlet node: \"%s\": %s\n", ca_file, strerror(-r));
                        return 1;
                }
        }
        /* The pods' network: the Node's podCIDR on this node's bridge, and routes to the other
         * nodes' pods (docs/networking.md). */
        {
                const struct api_client_options co = { .server_url = f.servers,
                                                       .ca_file = ca_file,
                                                       .cert_file = cert_file,
                                                       .key_file = key_file };
                const struct network_options nopts = { .data_dir = f.data_dir,
                                                       .pod_cidr = pod_cidr,
                                                       .cluster_cidr = f.cluster_cidr,
                                                       .bridge = bridge,
                                                       .cni_path = f.cni_path };

                if (f.pod_bridge)
                        (void) snprintf(bridge, sizeof(bridge), "%s", f.pod_bridge);
                else
                        default_bridge(f.node_name, bridge);
                r = wait_pod_cidr(&co, f.node_name, &sigs, pod_cidr, &err);
                if (r == -EINTR) {
                        (void) fprintf(stderr, "flexlet node: stopped while waiting\n");
                        return 0;
                }
                if (r >= 0)
                        r = pod_network_open(&nopts, &network, &err);
                if (r < 0) {
                        (void) fprintf(stderr, "flexlet node: pod network: %s\n", err->message);
                        return 1;
                }
                (void) fprintf(stderr, "flexlet node: pods in %s on bridge %s\n", pod_cidr, bridge);
                r = route_keeper_start(&co,
                                       &(struct route_keeper_options){ .node_name = f.node_name,
                                                                       .node_ip = ip,
                                                                       .bridge = bridge },
                                       &routes, &err);
                if (r < 0) {
                        (void) fprintf(stderr, "flexlet node: %s\n", err->message);
                        pod_network_free(network);
                        return 1;
                }
        }
        {
                struct node_agent_options no = {
                        .server_url = f.servers,
                        .ca_file = ca_file,
                        .cert_file = cert_file,
                        .key_file = key_file,
                        /* the API server reaches the kubelet endpoint with its system:masters
                         * client certificate (kubelet-server.h) */
                        .kubelet_client_ca_pem = ca_pem,
                        .kubelet_cert_pem = serving_cert,
                        .kubelet_key_pem = serving_key,
                        .kubelet_listen = f.kubelet_listen,
                        .node_name = f.node_name,
                        .data_dir = f.data_dir,
                        .cgroup_root = f.cgroup_root,
                        .allocatable = f.allocatable,
                        .feature_gates = f.feature_gates,
                        .network = network,
                };
                node_agent_flags_apply(&f.agent, &no);
                r = node_agent_start(&no, &agent, &err);
                if (r < 0) {
                        (void) fprintf(stderr, "flexlet node: node agent: %s\n", err->message);
                        route_keeper_stop(routes);
                        pod_network_free(network);
                        return 1;
                }
        }
        (void) fprintf(stderr, "flexlet node: node %s joined %s\n", f.node_name, f.servers);
        sig = cmd_wait_signal(&sigs, NULL, NULL);
        (void) fprintf(stderr, "flexlet node: %s, shutting down\n", strsignal(sig));
        node_agent_stop(agent);
        route_keeper_stop(routes);
        pod_network_free(network);
        return 0;
}
