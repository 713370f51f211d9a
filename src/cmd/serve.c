/* serve.c: `flexlet serve`, the all-in-one cluster: credentials, the store (SQLite, or etcd
 * with --store etcd), the API server over HTTPS, the bootstrap namespaces, the scheduler and
 * this machine's node agent, then wait for SIGINT/SIGTERM. `flexlet apiserver` is the same
 * without the node agent. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/field-error.h"
#include "api/validation.h"
#include "apiserver/api.h"
#include "apiserver/audit.h"
#include "apiserver/authn.h"
#include "apiserver/authz.h"
#include "apiserver/rbac.h"
#include "apiserver/jws.h"
#include "apiserver/inflight.h"
#include "apiserver/informer-feed.h"
#include "apiserver/loopback.h"
#include "apiserver/pki.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/json.h"
#include "base/metrics.h"
#include "base/quantity.h"
#include "client/token-source.h"
#include "cmd/cmd.h"
#include "cmd/flags.h"
#include "cmd/node-token.h"
#include "controllers/clusterrole-aggregation.h"
#include "controllers/csr-controller.h"
#include "controllers/namespace.h"
#include "controllers/pv-driver.h"
#include "controllers/pv-provisioner.h"
#include "controllers/scheduler.h"
#include "controllers/resourcequota.h"
#include "controllers/rootca-publisher.h"
#include "controllers/disruption.h"
#include "controllers/daemonset.h"
#include "controllers/deployment.h"
#include "controllers/replicaset.h"
#include "controllers/statefulset.h"
#include "controllers/garbage-collector.h"
#include "controllers/job.h"
#include "controllers/leader-election.h"
#include "controllers/node-ipam.h"
#include "controllers/node-lifecycle.h"
#include "controllers/serviceaccount.h"
#include "controllers/tokencleaner.h"
#include "controllers/storage-protection.h"
#include "controllers/volume-expander.h"
#include "node/volume/nodevol.h"
#include "node/volume/storage-metrics.h"
#include "http/http-server.h"
#include "node/agent.h"
#include "node/network/network.h"
#include "node/route-keeper.h"
#include "node/node-status.h"
#include "store/store.h"

struct serve_flags {
        const char *data_dir;
        const char *listen;
        const char *node_name;
        const char *cgroup_root;
        const char *allocatable;
        const char *feature_gates;
        const char *store;
        const char *etcd_endpoints;
        const char *etcd_cafile, *etcd_certfile, *etcd_keyfile;
        unsigned etcd_compaction_interval_ms; /* 0: never */
        unsigned event_ttl_ms;
        int64_t watch_cache_bytes; /* 0: the store's default */
        const char *pod_cidr;
        const char *pod_bridge;
        const char *cluster_cidr;
        unsigned node_cidr_mask_size;
        unsigned max_connections;
        unsigned max_connections_per_client;
        unsigned tls_handshake_timeout_ms;
        unsigned request_head_timeout_ms;
        unsigned idle_timeout_ms;
        unsigned max_requests_inflight;
        unsigned max_mutating_requests_inflight;
        const char *token_auth_file;
        const char *authorization_mode;
        const char *audit_log_path;
        const char *audit_policy_file;
        int audit_log_maxsize;
        int audit_log_maxbackup;
        int audit_log_maxage;
        unsigned node_monitor_period_ms;
        unsigned node_monitor_grace_period_ms;
        const char *pki_dir;
        int leader_elect; /* -1: as the store says (etcd: on, SQLite: off) */
        unsigned leader_elect_lease_duration_ms, leader_elect_renew_deadline_ms,
                leader_elect_retry_period_ms;
        struct node_agent_flags agent;
        const char *node_flag; /* a node agent flag given (refused by `apiserver`) */
};

/* Long-only flags, past every character an option letter may be. */
enum {
        FLAG_NODE_MONITOR_PERIOD = 0x100,
        FLAG_NODE_MONITOR_GRACE_PERIOD,
        FLAG_AUTHORIZATION_MODE,
        FLAG_PKI_DIR,
        FLAG_CLUSTER_CIDR,
        FLAG_NODE_CIDR_MASK_SIZE,
        FLAG_LEADER_ELECT,
        FLAG_LEADER_ELECT_LEASE_DURATION,
        FLAG_LEADER_ELECT_RENEW_DEADLINE,
        FLAG_LEADER_ELECT_RETRY_PERIOD,
};

static void serve_usage(FILE *f, const char *command)
{
        (void) fprintf(f, "usage: flexlet %s [flags]\n\n", command);
        (void) fprintf(
                f,
                "  --data-dir DIR          store, credentials, kubeconfig (default /var/lib/flexlet)\n"
                "  --pki-dir DIR           the cluster's CA, keys and tokens (default DATA_DIR/pki);\n"
                "                          API servers of one cluster each get a copy of the first's\n"
                "  --leader-elect[=BOOL]   run the controllers and the scheduler only while holding\n"
                "                          their Lease in kube-system (default: true on etcd, false\n"
                "                          on SQLite)\n"
                "  --leader-elect-lease-duration DURATION   (default 15s)\n"
                "  --leader-elect-renew-deadline DURATION   (default 10s)\n"
                "  --leader-elect-retry-period DURATION     (default 2s)\n"
                "  --listen HOST:PORT      HTTPS address (default 127.0.0.1:6443)\n"
                "  --node-name NAME        this node's name (default: the host name)\n"
                "  --cgroup-root NAME      parent of every cgroup flexlet makes (default flexlet)\n"
                "  --allocatable LIST      node allocatable override, e.g. cpu=4,memory=4Gi\n"
                "  --feature-gates LIST    Name=true|false,...\n"
                "  --store sqlite|etcd     storage backend (default sqlite)\n"
                "  --etcd-endpoints URLS   etcd endpoints (http:// or https://, comma-separated),\n"
                "                          for --store etcd; the next is used when one fails\n"
                "  --etcd-cafile FILE      CA that signs the etcd servers' certificates\n"
                "  --etcd-certfile FILE    client certificate to present to etcd\n"
                "  --etcd-keyfile FILE     its private key\n"
                "  --etcd-compaction-interval DURATION\n"
                "                          compact etcd's history this often, 0 never (default 5m)\n"
                "  --event-ttl DURATION    events expire this long after their last write, on etcd\n"
                "                          (default 1h; SQLite keeps them)\n"
                "  --watch-cache-bytes Q   memory the watch history's objects may hold (default\n"
                "                          64Mi; a watcher may leave a quarter of it unread)\n"
                "  --cluster-cidr CIDR     IPv4 range of every node's pod IPs, out of which the node\n"
                "                          IPAM controller gives each Node its spec.podCIDR\n"
                "                          (default " NETWORK_DEFAULT_POD_CIDR ")\n"
                "  --node-cidr-mask-size N the prefix length of a Node's podCIDR (default 24)\n"
                "  --pod-cidr CIDR         this node's pod IPs (default: its Node's podCIDR, or the\n"
                "                          first free subnet of --cluster-cidr)\n"
                "  --pod-bridge NAME       the pods' bridge; gets the CIDR's first address (default " NETWORK_DEFAULT_BRIDGE
                ")\n"
                "  --max-connections N     open connections in all (default 4096)\n"
                "  --max-connections-per-client N\n"
                "                          open connections from one client address (default 1024)\n"
                "  --tls-handshake-timeout DURATION\n"
                "                          a TLS handshake ends within this of the accept (default 10s)\n"
                "  --request-head-timeout DURATION\n"
                "                          a request line and headers arrive within this (default 32s)\n"
                "  --idle-timeout DURATION a keep-alive connection waits this for its next request,\n"
                "                          and any connection this silent is closed (default 90s)\n"
                "  --max-requests-inflight N\n"
                "                          read-only requests handled at once, 0 no limit (default 400)\n"
                "  --max-mutating-requests-inflight N\n"
                "                          mutating requests handled at once, 0 no limit (default 200)\n"
                "  --token-auth-file FILE  static bearer tokens: CSV lines of token,user,uid[,\"groups\"]\n"
                "  --node-monitor-period DURATION\n"
                "                          how often node health is checked (default 5s)\n"
                "  --node-monitor-grace-period DURATION\n"
                "                          a node whose lease and status stand still this long is\n"
                "                          NotReady (Unknown) and tainted (default 50s)\n"
                "  --audit-log-path PATH   write audit.k8s.io/v1 Events here, one JSON line each ('-':\n"
                "                          standard output); needs --audit-policy-file\n"
                "  --audit-policy-file FILE\n"
                "                          the audit Policy (YAML or JSON) deciding what is logged\n"
                "  --audit-log-maxsize MB  rotate the log at this size (default 0: 100 MB)\n"
                "  --audit-log-maxbackup N rotated files kept (default 0: all)\n"
                "  --audit-log-maxage DAYS rotated files kept this long (default 0: for ever)\n"
                "  --authorization-mode LIST\n"
                "                          authorizers in order: RBAC, AlwaysAllow, AlwaysDeny\n"
                "                          (default " AUTHZ_DEFAULT_MODES ")\n"
                "the node agent's (flexlet serve):\n" NODE_FLAG_USAGE);
}

/* "k=v,k=v" with non-empty keys and values; the node agent interprets them. */
static int check_key_value_list(const char *command, const char *flag, const char *list)
{
        cleanup_free char *copy = xstrdup(list);
        char *save = NULL;

        for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(item, '=');
                if (!eq || eq == item || !eq[1]) {
                        (void) fprintf(stderr, "flexlet %s: %s: \"%s\" is not NAME=VALUE\n",
                                       command, flag, item);
                        return -EINVAL;
                }
        }
        return 0;
}

static int parse_flags(const char *command, int argc, char **argv, struct serve_flags *f)
{
        static const struct option options[] = {
                { "data-dir", required_argument, NULL, 'd' },
                { "listen", required_argument, NULL, 'l' },
                { "node-name", required_argument, NULL, 'n' },
                { "cgroup-root", required_argument, NULL, 'c' },
                { "allocatable", required_argument, NULL, 'a' },
                { "feature-gates", required_argument, NULL, 'f' },
                { "store", required_argument, NULL, 's' },
                { "etcd-endpoints", required_argument, NULL, 'e' },
                { "etcd-cafile", required_argument, NULL, 'x' },
                { "etcd-certfile", required_argument, NULL, 'y' },
                { "etcd-keyfile", required_argument, NULL, 'z' },
                { "etcd-compaction-interval", required_argument, NULL, 'Z' },
                { "event-ttl", required_argument, NULL, 'E' },
                { "watch-cache-bytes", required_argument, NULL, 'w' },
                { "pod-cidr", required_argument, NULL, 'p' },
                { "pod-bridge", required_argument, NULL, 'b' },
                { "max-connections", required_argument, NULL, 'C' },
                { "max-connections-per-client", required_argument, NULL, 'P' },
                { "tls-handshake-timeout", required_argument, NULL, 'T' },
                { "request-head-timeout", required_argument, NULL, 'H' },
                { "idle-timeout", required_argument, NULL, 'I' },
                { "max-requests-inflight", required_argument, NULL, 'R' },
                { "max-mutating-requests-inflight", required_argument, NULL, 'M' },
                { "token-auth-file", required_argument, NULL, 'K' },
                { "node-monitor-period", required_argument, NULL, FLAG_NODE_MONITOR_PERIOD },
                { "node-monitor-grace-period", required_argument, NULL,
                  FLAG_NODE_MONITOR_GRACE_PERIOD },
                { "audit-log-path", required_argument, NULL, 'A' },
                { "audit-policy-file", required_argument, NULL, 'Y' },
                { "audit-log-maxsize", required_argument, NULL, 'S' },
                { "audit-log-maxbackup", required_argument, NULL, 'B' },
                { "audit-log-maxage", required_argument, NULL, 'G' },
                { "authorization-mode", required_argument, NULL, FLAG_AUTHORIZATION_MODE },
                { "pki-dir", required_argument, NULL, FLAG_PKI_DIR },
                { "cluster-cidr", required_argument, NULL, FLAG_CLUSTER_CIDR },
                { "node-cidr-mask-size", required_argument, NULL, FLAG_NODE_CIDR_MASK_SIZE },
                { "leader-elect", optional_argument, NULL, FLAG_LEADER_ELECT },
                { "leader-elect-lease-duration", required_argument, NULL,
                  FLAG_LEADER_ELECT_LEASE_DURATION },
                { "leader-elect-renew-deadline", required_argument, NULL,
                  FLAG_LEADER_ELECT_RENEW_DEADLINE },
                { "leader-elect-retry-period", required_argument, NULL,
                  FLAG_LEADER_ELECT_RETRY_PERIOD },
                NODE_FLAG_OPTIONS,
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        int c, index = 0;

        optind = 1;
        while ((c = getopt_long(argc, argv, "h", options, &index)) != -1) {
                int node = parse_node_flag(command, c, optarg, &f->agent);

                if (node < 0)
                        return -EINVAL;
                if (node > 0) {
                        f->node_flag = options[index].name;
                        continue;
                }
                switch (c) {
                case 'd':
                        f->data_dir = optarg;
                        break;
                case 'l':
                        f->listen = optarg;
                        break;
                case 'n':
                        f->node_name = optarg;
                        break;
                case 'c':
                        f->cgroup_root = optarg;
                        break;
                case 'a':
                        f->allocatable = optarg;
                        break;
                case 'f':
                        f->feature_gates = optarg;
                        break;
                case 's':
                        f->store = optarg;
                        break;
                case 'e':
                        f->etcd_endpoints = optarg;
                        break;
                case 'x':
                        f->etcd_cafile = optarg;
                        break;
                case 'y':
                        f->etcd_certfile = optarg;
                        break;
                case 'z':
                        f->etcd_keyfile = optarg;
                        break;
                case 'Z':
                        /* K8S: --etcd-compaction-interval 0 disables compaction */
                        if (streq(optarg, "0"))
                                f->etcd_compaction_interval_ms = 0;
                        else if (parse_duration_ms(command, "--etcd-compaction-interval", optarg,
                                                   &f->etcd_compaction_interval_ms) < 0)
                                return -EINVAL;
                        break;
                case 'E':
                        if (parse_duration_ms(command, "--event-ttl", optarg, &f->event_ttl_ms) <
                                    0 ||
                            f->event_ttl_ms < 1000) {
                                (void) fprintf(stderr,
                                               "flexlet %s: --event-ttl: at least one second\n",
                                               command);
                                return -EINVAL;
                        }
                        break;
                case 'w': {
                        cleanup_error struct error *err = NULL;
                        struct quantity q;

                        if (quantity_parse(optarg, &q, &err) < 0 ||
                            quantity_value(&q, &f->watch_cache_bytes) < 0 ||
                            f->watch_cache_bytes < 1024 * 1024) {
                                (void) fprintf(stderr,
                                               "flexlet %s: --watch-cache-bytes \"%s\": want a "
                                               "size of at least 1Mi\n",
                                               command, optarg);
                                return -EINVAL;
                        }
                        break;
                }
                case 'p':
                        f->pod_cidr = optarg;
                        break;
                case 'b':
                        f->pod_bridge = optarg;
                        break;
                case 'C':
                        if (parse_count(command, "--max-connections", optarg, 1, 1000000,
                                        &f->max_connections) < 0)
                                return -EINVAL;
                        break;
                case 'P':
                        if (parse_count(command, "--max-connections-per-client", optarg, 1, 1000000,
                                        &f->max_connections_per_client) < 0)
                                return -EINVAL;
                        break;
                case 'T':
                        if (parse_duration_ms(command, "--tls-handshake-timeout", optarg,
                                              &f->tls_handshake_timeout_ms) < 0)
                                return -EINVAL;
                        break;
                case 'H':
                        if (parse_duration_ms(command, "--request-head-timeout", optarg,
                                              &f->request_head_timeout_ms) < 0)
                                return -EINVAL;
                        break;
                case 'I':
                        if (parse_duration_ms(command, "--idle-timeout", optarg,
                                              &f->idle_timeout_ms) < 0)
                                return -EINVAL;
                        break;
                case 'R':
                        if (parse_count(command, "--max-requests-inflight", optarg, 0, 1000000,
                                        &f->max_requests_inflight) < 0)
                                return -EINVAL;
                        break;
                case 'M':
                        if (parse_count(command, "--max-mutating-requests-inflight", optarg, 0,
                                        1000000, &f->max_mutating_requests_inflight) < 0)
                                return -EINVAL;
                        break;
                case 'K':
                        f->token_auth_file = optarg;
                        break;
                case FLAG_NODE_MONITOR_PERIOD:
                        if (parse_duration_ms(command, "--node-monitor-period", optarg,
                                              &f->node_monitor_period_ms) < 0)
                                return -EINVAL;
                        break;
                case FLAG_NODE_MONITOR_GRACE_PERIOD:
                        if (parse_duration_ms(command, "--node-monitor-grace-period", optarg,
                                              &f->node_monitor_grace_period_ms) < 0)
                                return -EINVAL;
                        break;
                case 'A':
                        f->audit_log_path = optarg;
                        break;
                case 'Y':
                        f->audit_policy_file = optarg;
                        break;
                case 'S':
                case 'B':
                case 'G': {
                        /* K8S: plain ints; a negative one is refused by audit_new with
                         * upstream's message */
                        char *end;
                        long v;
                        int *dst = c == 'S'   ? &f->audit_log_maxsize
                                   : c == 'B' ? &f->audit_log_maxbackup
                                              : &f->audit_log_maxage;

                        errno = 0;
                        v = strtol(optarg, &end, 10);
                        if (errno || end == optarg || *end || v < INT_MIN || v > INT_MAX) {
                                (void) fprintf(stderr,
                                               "flexlet %s: invalid argument \"%s\" for \"%s\" "
                                               "flag: strconv.ParseInt: parsing \"%s\": invalid "
                                               "syntax\n",
                                               command, optarg,
                                               c == 'S'   ? "--audit-log-maxsize"
                                               : c == 'B' ? "--audit-log-maxbackup"
                                                          : "--audit-log-maxage",
                                               optarg);
                                return -EINVAL;
                        }
                        *dst = (int) v;
                        break;
                }
                case FLAG_AUTHORIZATION_MODE:
                        f->authorization_mode = optarg;
                        break;
                case FLAG_PKI_DIR:
                        f->pki_dir = optarg;
                        break;
                case FLAG_CLUSTER_CIDR:
                        f->cluster_cidr = optarg;
                        break;
                case FLAG_NODE_CIDR_MASK_SIZE:
                        if (parse_count(command, "--node-cidr-mask-size", optarg, 1, 32,
                                        &f->node_cidr_mask_size) < 0)
                                return -EINVAL;
                        break;
                case FLAG_LEADER_ELECT:
                        /* K8S: a Go bool flag: bare, or =true / =false */
                        if (!optarg || streq(optarg, "true") || streq(optarg, "1")) {
                                f->leader_elect = 1;
                        } else if (streq(optarg, "false") || streq(optarg, "0")) {
                                f->leader_elect = 0;
                        } else {
                                (void) fprintf(stderr,
                                               "flexlet %s: invalid argument \"%s\" for "
                                               "\"--leader-elect\" flag: strconv.ParseBool: "
                                               "parsing \"%s\": invalid syntax\n",
                                               command, optarg, optarg);
                                return -EINVAL;
                        }
                        break;
                case FLAG_LEADER_ELECT_LEASE_DURATION:
                        if (parse_duration_ms(command, "--leader-elect-lease-duration", optarg,
                                              &f->leader_elect_lease_duration_ms) < 0)
                                return -EINVAL;
                        break;
                case FLAG_LEADER_ELECT_RENEW_DEADLINE:
                        if (parse_duration_ms(command, "--leader-elect-renew-deadline", optarg,
                                              &f->leader_elect_renew_deadline_ms) < 0)
                                return -EINVAL;
                        break;
                case FLAG_LEADER_ELECT_RETRY_PERIOD:
                        if (parse_duration_ms(command, "--leader-elect-retry-period", optarg,
                                              &f->leader_elect_retry_period_ms) < 0)
                                return -EINVAL;
                        break;
                case 'h':
                        serve_usage(stdout, command);
                        exit(0);
                default:
                        serve_usage(stderr, command);
                        return -EINVAL;
                }
        }
        if (f->node_flag && streq(command, "apiserver")) {
                (void) fprintf(stderr,
                               "flexlet apiserver: --%s: a node agent flag (flexlet serve or "
                               "flexlet node)\n",
                               f->node_flag);
                return -EINVAL;
        }
        if (check_node_flags(command, &f->agent) < 0)
                return -EINVAL;
        if (optind < argc) {
                (void) fprintf(stderr, "flexlet %s: unexpected argument \"%s\"\n", command,
                               argv[optind]);
                return -EINVAL;
        }
        if (f->allocatable && check_key_value_list(command, "--allocatable", f->allocatable) < 0)
                return -EINVAL;
        if (f->feature_gates &&
            check_key_value_list(command, "--feature-gates", f->feature_gates) < 0)
                return -EINVAL;
        if (!streq(f->store, "sqlite") && !streq(f->store, "etcd")) {
                (void) fprintf(stderr, "flexlet %s: --store %s: want sqlite or etcd\n", command,
                               f->store);
                return -EINVAL;
        }
        if (streq(f->store, "etcd") && !f->etcd_endpoints) {
                (void) fprintf(stderr, "flexlet %s: --store etcd needs --etcd-endpoints\n",
                               command);
                return -EINVAL;
        }
        if (streq(f->store, "sqlite") &&
            (f->etcd_endpoints || f->etcd_cafile || f->etcd_certfile || f->etcd_keyfile)) {
                (void) fprintf(stderr, "flexlet %s: the --etcd-* flags need --store etcd\n",
                               command);
                return -EINVAL;
        }
        if (f->etcd_endpoints) {
                cleanup_free char *copy = xstrdup(f->etcd_endpoints);
                char *save = NULL;

                /* checked before anything is made under the data dir */
                for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
                        if (strncmp(t, "http://", 7) != 0 && strncmp(t, "https://", 8) != 0) {
                                (void) fprintf(stderr,
                                               "flexlet %s: --etcd-endpoints: \"%s\": want "
                                               "http:// or https://\n",
                                               command, t);
                                return -EINVAL;
                        }
        }
        if (f->leader_elect < 0)
                f->leader_elect = streq(f->store, "etcd");
        if (!f->etcd_certfile != !f->etcd_keyfile) {
                (void) fprintf(stderr,
                               "flexlet %s: --etcd-certfile and --etcd-keyfile go together\n",
                               command);
                return -EINVAL;
        }
        return 0;
}

/* The service account each controller runs as, in kube-system (K8S: the names
 * kube-controller-manager's controllers ask its client builder for, bound by the bootstrap
 * policy to system:controller:NAME). */
enum controller_account {
        ACCOUNT_PVC_PROTECTION,
        ACCOUNT_NAMESPACE,
        ACCOUNT_SERVICE_ACCOUNT,
        ACCOUNT_ROOT_CA,
        ACCOUNT_RESOURCEQUOTA,
        ACCOUNT_DISRUPTION,
        ACCOUNT_REPLICASET,
        ACCOUNT_DEPLOYMENT,
        ACCOUNT_STATEFULSET,
        ACCOUNT_DAEMONSET,
        ACCOUNT_GC,
        ACCOUNT_JOB,
        ACCOUNT_TTL,
        ACCOUNT_NODE,
        ACCOUNT_TOKEN_CLEANER,
        ACCOUNT_AGGREGATION,
        ACCOUNT_CSR,
        ACCOUNT_PV_BINDER,
        ACCOUNT_EXPAND,
        ACCOUNT_MAX
};

static const struct {
        const char *name;
} accounts_list[ACCOUNT_MAX] = {
        [ACCOUNT_PVC_PROTECTION] = { "pvc-protection-controller" },
        [ACCOUNT_NAMESPACE] = { "namespace-controller" },
        [ACCOUNT_SERVICE_ACCOUNT] = { "service-account-controller" },
        [ACCOUNT_ROOT_CA] = { "root-ca-cert-publisher" },
        [ACCOUNT_RESOURCEQUOTA] = { "resourcequota-controller" },
        [ACCOUNT_DISRUPTION] = { "disruption-controller" },
        [ACCOUNT_REPLICASET] = { "replicaset-controller" },
        [ACCOUNT_DEPLOYMENT] = { "deployment-controller" },
        [ACCOUNT_STATEFULSET] = { "statefulset-controller" },
        [ACCOUNT_DAEMONSET] = { "daemon-set-controller" },
        [ACCOUNT_GC] = { "generic-garbage-collector" },
        [ACCOUNT_JOB] = { "job-controller" },
        [ACCOUNT_TTL] = { "ttl-after-finished-controller" },
        [ACCOUNT_NODE] = { "node-controller" },
        [ACCOUNT_TOKEN_CLEANER] = { "token-cleaner" },
        [ACCOUNT_AGGREGATION] = { "clusterrole-aggregation-controller" },
        [ACCOUNT_CSR] = { "certificate-controller" },
        [ACCOUNT_PV_BINDER] = { "persistent-volume-binder" },
        [ACCOUNT_EXPAND] = { "expand-controller" },
};

/* One of the server's own writes, sent as its admin (the loopback credential): a failure is
 * reported, naming what was being done, and the start goes on. An object that exists already
 * (409) is what a restart finds. */
static void bootstrap_write(struct api_client *admin, const char *method, const char *path,
                            const char *content_type, const char *body, const char *what)
{
        cleanup_json json_t *answer = NULL;
        cleanup_error struct error *err = NULL;
        long status = 0;

        if (api_client_request(admin, method, path, content_type, body, strlen(body), &status,
                               &answer, &err) < 0)
                (void) fprintf(stderr, "flexlet: %s: %s\n", what, err->message);
        else if (status != 200 && status != 201 && status != 409)
                (void) fprintf(stderr, "flexlet: %s: HTTP %ld: %s\n", what, status,
                               json_string_value(json_object_get(answer, "message")) ?: "");
}

/* Creates a namespace through the API itself, so it gets what every namespace gets. */
static void bootstrap_namespace(struct api_client *admin, const char *name)
{
        cleanup_free char *body = xasprintf(
                "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}",
                name);
        cleanup_free char *what = xasprintf("creating namespace \"%s\"", name);

        bootstrap_write(admin, "POST", "/api/v1/namespaces", "application/json", body, what);
}

/* K8S: kubeadm's markcontrolplane: the node that runs the control plane is labelled
 * node-role.kubernetes.io/control-plane by the admin, since NodeRestriction forbids a node to set
 * node-role labels on itself (kubectl get nodes shows the role). */
static void mark_control_plane(struct api_client *admin, const char *node)
{
        cleanup_free char *path = xasprintf("/api/v1/nodes/%s", node);
        cleanup_free char *what = xasprintf("labelling node \"%s\"", node);

        bootstrap_write(
                admin, "PATCH", path, "application/merge-patch+json",
                "{\"metadata\":{\"labels\":{\"node-role.kubernetes.io/control-plane\":\"\"}}}",
                what);
}

/* The default StorageClass of the local-loop provisioner (sparse files under the data dir on
 * loop devices), created through the API like any class, and only when absent: an edited or
 * deleted class is left as the admin left it until then. K8S: WaitForFirstConsumer, as
 * upstream's node-local classes (local volumes, local-path) bind. */
static void bootstrap_storage_class(struct api_client *admin)
{
        static const char body[] =
                "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\","
                "\"metadata\":{\"name\":\"local-loop\",\"annotations\":{"
                "\"storageclass.kubernetes.io/is-default-class\":\"true\"}},"
                "\"provisioner\":\"flexlet.io/local-loop\",\"parameters\":{\"fsType\":\"ext4\"},"
                "\"reclaimPolicy\":\"Delete\",\"volumeBindingMode\":\"WaitForFirstConsumer\","
                "\"allowVolumeExpansion\":true}";

        bootstrap_write(admin, "POST", "/apis/storage.k8s.io/v1/storageclasses", "application/json",
                        body, "creating storage class \"local-loop\"");
}

/* cmd_wait_signal's release: the watch cache's interned values no object holds any more. */
static void release_unused(void *store)
{
        (void) store_release_unused(store);
}

/* The host part of HOST:PORT for the URL clients use (a wildcard becomes loopback). */
/* Whether listen's host is a wildcard (every address: "", "0.0.0.0", "[::]"). */
static bool listen_is_wildcard(const char *listen)
{
        const char *colon = strrchr(listen, ':');
        size_t n = colon ? (size_t) (colon - listen) : strlen(listen);

        return n == 0 || (n == 7 && strncmp(listen, "0.0.0.0", 7) == 0) ||
               (n == 4 && strncmp(listen, "[::]", 4) == 0);
}

static char *client_host(const char *listen)
{
        const char *colon = strrchr(listen, ':');
        cleanup_free char *host =
                xstrndup(listen, colon ? (size_t) (colon - listen) : strlen(listen));

        if (!*host || streq(host, "0.0.0.0"))
                return xstrdup("127.0.0.1");
        if (streq(host, "[::]"))
                return xstrdup("[::1]");
        return TAKE_PTR(host);
}

/* Every connection is a descriptor: raise the soft limit to cover --max-connections and the
 * rest of the process (up to the hard limit; past it the limit simply bites earlier). */
static void raise_fd_limit(unsigned max_connections)
{
        struct rlimit rl;
        rlim_t want = (rlim_t) max_connections + 1024;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
                return;
        rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ? rl.rlim_max : want;
        (void) setrlimit(RLIMIT_NOFILE, &rl);
}

/* The controllers kube-controller-manager runs, started and stopped together: one election
 * for the set, as upstream's. The scheduler is a set of its own (kube-scheduler's lease). */
struct controller_set {
        const char *command;
        const struct serve_flags *f;
        struct api_client_options co; /* its strings live as long as the set */
        const struct pki *pki;
        struct metrics_registry *metrics;
        bool with_node;
        bool scheduler_only;
        const char *node_pod_cidr; /* serve's own node's subnet (its bridge's), or NULL */
        const char *lease;         /* with --leader-elect: the Lease it runs under */
        /* each controller's client: its service account's token (client/token-source.h), the
         * informers as the controller manager (co) */
        struct api_client_options account_co[ACCOUNT_MAX];
        struct api_token_refresher *refresher; /* the sources' thread */
        struct api_token_source *sources[ACCOUNT_MAX];
        struct scheduler *sched;
        struct storage_protection *protection;
        struct namespace_controller *namespaces;
        struct serviceaccount_controller *accounts;
        struct rootca_publisher *rootca;
        struct resourcequota_controller *quotas;
        struct disruption_controller *disruption;
        struct replicaset_controller *replicasets;
        struct deployment_controller *deployments;
        struct statefulset_controller *statefulsets;
        struct daemonset_controller *daemonsets;
        struct garbage_collector *gc;
        struct job_controller *jobs;
        struct node_lifecycle_controller *lifecycle;
        struct node_ipam_controller *ipam;
        struct tokencleaner *cleaner;
        struct clusterrole_aggregation *aggregation;
        struct csr_controller *csrs;
        struct pv_provisioner *provisioner;
        struct volume_expander *expander;
        /* the files of serve's own node, for the storage controllers (pv-driver.h) */
        const char *volumes_dir;   /* the data dir they live under */
        struct metric *volume_ops; /* storage_operation_duration_seconds */
};

/* ---- pv_driver: serve's own node's volume files (node/volume/nodevol.h) ---- */

static int local_create(void *ud, const char *handle, int64_t bytes, const char *fstype,
                        int64_t *ret_file_bytes, struct error **reterr)
{
        const struct controller_set *s = ud;
        return nodevol_local_create(s->volumes_dir, handle, bytes, fstype, ret_file_bytes, reterr);
}

static int local_grow(void *ud, const char *handle, int64_t bytes, int64_t *ret_file_bytes,
                      struct error **reterr)
{
        const struct controller_set *s = ud;
        return nodevol_local_grow(s->volumes_dir, handle, bytes, s->volume_ops, ret_file_bytes,
                                  reterr);
}

static int local_file_bytes(void *ud, const char *handle, int64_t *ret)
{
        const struct controller_set *s = ud;
        return nodevol_local_file_bytes(s->volumes_dir, handle, ret);
}

static void local_sweep(void *ud, const json_t *handles, const json_t *uids, int age_s)
{
        const struct controller_set *s = ud;
        nodevol_local_sweep_orphans(s->volumes_dir, handles, uids, age_s);
}

/* Every part that started, in reverse (each stop takes NULL for one that did not). */
static void controllers_stop(void *ud)
{
        struct controller_set *s = ud;

        s->expander = volume_expander_stop(s->expander);
        s->provisioner = pv_provisioner_stop(s->provisioner);
        s->quotas = resourcequota_controller_stop(s->quotas);
        s->rootca = rootca_publisher_stop(s->rootca);
        s->accounts = serviceaccount_controller_stop(s->accounts);
        s->disruption = disruption_controller_stop(s->disruption);
        s->replicasets = replicaset_controller_stop(s->replicasets);
        s->deployments = deployment_controller_stop(s->deployments);
        s->statefulsets = statefulset_controller_stop(s->statefulsets);
        s->daemonsets = daemonset_controller_stop(s->daemonsets);
        s->gc = garbage_collector_stop(s->gc);
        s->jobs = job_controller_stop(s->jobs);
        s->ipam = node_ipam_controller_stop(s->ipam);
        s->lifecycle = node_lifecycle_controller_stop(s->lifecycle);
        s->aggregation = clusterrole_aggregation_stop(s->aggregation);
        s->csrs = csr_controller_stop(s->csrs);
        s->cleaner = tokencleaner_stop(s->cleaner);
        s->namespaces = namespace_controller_stop(s->namespaces);
        s->protection = storage_protection_stop(s->protection);
        s->sched = scheduler_stop(s->sched);
        s->refresher = api_token_refresher_stop(s->refresher); /* with the sources */
        for (size_t i = 0; i < ACCOUNT_MAX; i++)
                s->sources[i] = NULL;
}

/* The controllers write as API clients over loopback HTTPS (their informers read through the
 * set's co.feed, when it has one). On failure what started is stopped again and the cause
 * logged. */
static int controllers_start(void *ud)
{
        struct controller_set *s = ud;
        const struct serve_flags f = *s->f;
        const bool with_node = s->with_node;
        const struct api_client_options *ac = s->account_co;
        struct api_token_source *const *src = s->sources;
        cleanup_error struct error *err = NULL;
        int r = 0;

        if (s->scheduler_only) {
                r = scheduler_start(&s->co, &s->sched, &err);
                goto done;
        }
        r = api_token_refresher_start(&s->co, &s->refresher, &err);
        for (size_t i = 0; i < ACCOUNT_MAX && r >= 0; i++) {
                s->sources[i] =
                        api_token_source_start(s->refresher, "kube-system", accounts_list[i].name);
                s->account_co[i] = (struct api_client_options){ .server_url = s->co.server_url,
                                                                .ca_file = s->co.ca_file,
                                                                .token_source = s->sources[i],
                                                                .list_watch_as = &s->co,
                                                                .loopback = s->co.loopback };
        }
        /* The refresher asks for each account's first token in turn. A controller whose account
         * gets no token (an authorization mode without RBAC refuses the controller manager, as
         * it would a separate kube-controller-manager) is said and not started; the rest run. */
        for (size_t i = 0; i < ACCOUNT_MAX && r >= 0; i++) {
                cleanup_error struct error *why = NULL;

                if (!s->sources[i])
                        continue;
                if (api_token_source_wait(s->sources[i], 60 * 1000, &why) < 0) {
                        (void) fprintf(stderr,
                                       "flexlet %s: controllers: not starting the one that runs "
                                       "as \"%s\": %s\n",
                                       s->command, api_token_source_user(s->sources[i]),
                                       why->message);
                        s->sources[i] = api_token_source_stop(s->sources[i]);
                }
        }
        if (r >= 0 && src[ACCOUNT_PVC_PROTECTION])
                r = storage_protection_start(&ac[ACCOUNT_PVC_PROTECTION], &s->protection, &err);
        if (r >= 0 && src[ACCOUNT_NAMESPACE])
                r = namespace_controller_start(&ac[ACCOUNT_NAMESPACE], &s->namespaces, &err);
        if (r >= 0 && src[ACCOUNT_SERVICE_ACCOUNT])
                r = serviceaccount_controller_start(&ac[ACCOUNT_SERVICE_ACCOUNT], &s->accounts,
                                                    &err);
        if (r >= 0 && src[ACCOUNT_ROOT_CA])
                r = rootca_publisher_start(&ac[ACCOUNT_ROOT_CA], pki_ca_cert_pem(s->pki),
                                           &s->rootca, &err);
        if (r >= 0 && src[ACCOUNT_RESOURCEQUOTA])
                r = resourcequota_controller_start(&ac[ACCOUNT_RESOURCEQUOTA], &s->quotas, &err);
        if (r >= 0 && src[ACCOUNT_DISRUPTION])
                r = disruption_controller_start(&ac[ACCOUNT_DISRUPTION], &s->disruption, &err);
        if (r >= 0 && src[ACCOUNT_REPLICASET])
                r = replicaset_controller_start(&ac[ACCOUNT_REPLICASET], &s->replicasets, &err);
        if (r >= 0 && src[ACCOUNT_DEPLOYMENT])
                r = deployment_controller_start(&ac[ACCOUNT_DEPLOYMENT], &s->deployments, &err);
        if (r >= 0 && src[ACCOUNT_STATEFULSET])
                r = statefulset_controller_start(&ac[ACCOUNT_STATEFULSET], &s->statefulsets, &err);
        if (r >= 0 && src[ACCOUNT_DAEMONSET])
                r = daemonset_controller_start(&ac[ACCOUNT_DAEMONSET], &s->daemonsets, &err);
        if (r >= 0 && src[ACCOUNT_GC])
                r = garbage_collector_start(&ac[ACCOUNT_GC], &s->gc, &err);
        if (r >= 0 && src[ACCOUNT_JOB] && src[ACCOUNT_TTL])
                r = job_controller_start(&ac[ACCOUNT_JOB], &ac[ACCOUNT_TTL], &s->jobs, &err);
        if (r >= 0 && src[ACCOUNT_NODE])
                r = node_lifecycle_controller_start(
                        &ac[ACCOUNT_NODE],
                        &(struct node_lifecycle_options){
                                .monitor_period_ms = f.node_monitor_period_ms,
                                .grace_period_ms = f.node_monitor_grace_period_ms },
                        &s->lifecycle, &err);
        /* K8S: startNodeIpamController runs as the node-controller account too */
        if (r >= 0 && src[ACCOUNT_NODE])
                r = node_ipam_controller_start(
                        &ac[ACCOUNT_NODE],
                        &(struct node_ipam_options){ .cluster_cidr = f.cluster_cidr,
                                                     .node_cidr_mask_size = f.node_cidr_mask_size,
                                                     .preset_node = with_node ? f.node_name : NULL,
                                                     .preset_cidr = s->node_pod_cidr },
                        &s->ipam, &err);
        if (r >= 0 && src[ACCOUNT_TOKEN_CLEANER])
                r = tokencleaner_start(&ac[ACCOUNT_TOKEN_CLEANER], &s->cleaner, &err);
        if (r >= 0 && src[ACCOUNT_AGGREGATION])
                r = clusterrole_aggregation_start(&ac[ACCOUNT_AGGREGATION], &s->aggregation, &err);
        if (r >= 0 && src[ACCOUNT_CSR])
                r = csr_controller_start(
                        &ac[ACCOUNT_CSR],
                        &(struct csr_controller_options){ .ca_cert_pem = pki_ca_cert_pem(s->pki),
                                                          .ca_key_pem = pki_ca_key_pem(s->pki) },
                        &s->csrs, &err);
        /* the storage controllers run where serve's own node does: the volumes of that node
         * are made and grown through the driver (in this process, under the server's data
         * dir), those of other nodes by their node (docs/storage.md) */
        if (r >= 0 && with_node && s->metrics) {
                s->volume_ops = storage_operation_metric(s->metrics, &err);
                if (!s->volume_ops)
                        r = -EINVAL;
        }
        /* `flexlet apiserver` has no node of its own: its provisioner and expander do the API
         * work only (volumes pinned to a node, handed to it), as kube-controller-manager's
         * with an external node-local provisioner; without them a claim of a cluster whose
         * nodes all joined with `flexlet node` would stay Pending (issue 14, item 6) */
        if (r >= 0) {
                const struct pv_driver driver = { .node = f.node_name,
                                                  .ud = s,
                                                  .create = local_create,
                                                  .grow = local_grow,
                                                  .file_bytes = local_file_bytes,
                                                  .sweep_orphans = local_sweep };

                if (with_node)
                        s->volumes_dir = f.data_dir;
                if (src[ACCOUNT_PV_BINDER])
                        r = pv_provisioner_start(&ac[ACCOUNT_PV_BINDER], with_node ? &driver : NULL,
                                                 &s->provisioner, &err);
                if (r >= 0 && src[ACCOUNT_EXPAND])
                        r = volume_expander_start(&ac[ACCOUNT_EXPAND], with_node ? &driver : NULL,
                                                  &s->expander, &err);
        }
done:
        if (r < 0) {
                (void) fprintf(stderr, "flexlet %s: controllers: %s\n", s->command, err->message);
                controllers_stop(s);
        }
        return r;
}

static int elected_start(void *ud)
{
        const struct controller_set *s = ud;

        (void) fprintf(stderr, "flexlet %s: leading %s/%s: starting its controllers\n", s->command,
                       LEADER_ELECTION_NAMESPACE, s->lease);
        return controllers_start(ud);
}

/* We stop and campaign again where upstream's components exit: the API server in this
 * process must keep serving (leader-election.h). */
static void elected_stop(void *ud, const char *why)
{
        const struct controller_set *s = ud;

        (void) fprintf(stderr, "flexlet %s: no longer leading %s/%s (%s): its controllers stop\n",
                       s->command, LEADER_ELECTION_NAMESPACE, s->lease, why ?: "shutting down");
        controllers_stop(ud);
}

static void elected_new_leader(void *ud, const char *identity)
{
        const struct controller_set *s = ud;

        (void) fprintf(stderr, "flexlet %s: %s/%s is held by %s\n", s->command,
                       LEADER_ELECTION_NAMESPACE, s->lease, *identity ? identity : "nobody");
}

/* Starts a set now, or (with --leader-elect) whenever this process holds the set's Lease. */
static int controllers_run(struct controller_set *s, const char *lease, const char *identity,
                           struct leader_election **ret_election)
{
        cleanup_error struct error *err = NULL;
        const struct leader_election_config lc = {
                .name = lease,
                .identity = identity,
                .lease_duration_ms = s->f->leader_elect_lease_duration_ms,
                .renew_deadline_ms = s->f->leader_elect_renew_deadline_ms,
                .retry_period_ms = s->f->leader_elect_retry_period_ms,
        };
        const struct leader_election_callbacks cb = {
                .started_leading = elected_start,
                .stopped_leading = elected_stop,
                .new_leader = elected_new_leader,
                .ud = s,
        };
        int r;

        if (!s->f->leader_elect)
                return controllers_start(s);
        s->lease = lease;
        r = leader_election_start(&s->co, &lc, &cb, ret_election, &err);
        if (r < 0)
                (void) fprintf(stderr, "flexlet %s: %s\n", s->command, err->message);
        return r;
}

/* The subnet of serve's own node, which its bridge gets before the API server starts: --pod-cidr
 * when given, else its Node's podCIDR when it has one, else the first subnet of the cluster CIDR
 * no Node has (what the node IPAM controller, started with it as its preset, gives that Node). */
static int serve_node_pod_cidr(struct store *store, const struct serve_flags *f, char out[20],
                               struct error **reterr)
{
        cleanup_json json_t *nodes = NULL;
        struct cidr_set set;
        uint64_t rv = 0;
        size_t i;
        json_t *n;
        int r;

        if (f->pod_cidr) {
                (void) snprintf(out, 20, "%s", f->pod_cidr);
                return 0;
        }
        r = store_list(store, "nodes", NULL, &nodes, &rv, reterr);
        if (r < 0)
                return error_wrap(reterr, "the node's pod CIDR");
        r = cidr_set_init(&set, f->cluster_cidr,
                          f->node_cidr_mask_size ?: NODE_IPAM_DEFAULT_MASK_SIZE, reterr);
        if (r < 0)
                return r;
        json_array_foreach(nodes, i, n) {
                const char *c = json_string_value(json_array_get(json_path(n, "spec.podCIDRs"), 0))
                                        ?: json_path_string(n, "spec.podCIDR");

                if (!c)
                        continue;
                if (streq(json_path_string_or_empty(n, "metadata.name"), f->node_name)) {
                        (void) snprintf(out, 20, "%s", c);
                        cidr_set_release(&set);
                        return 0;
                }
                (void) cidr_set_occupy(&set, c);
        }
        r = cidr_set_allocate_next(&set, out);
        cidr_set_release(&set);
        if (r < 0)
                return error_set(reterr, ENOSPC,
                                 "the node's pod CIDR: no free subnet of --cluster-cidr %s left",
                                 f->cluster_cidr);
        return 0;
}

static int run_server(const char *command, bool with_node, int argc, char **argv)
{
        struct serve_flags f = {
                .data_dir = "/var/lib/flexlet",
                .listen = "127.0.0.1:6443",
                .cgroup_root = "flexlet",
                .store = "sqlite",
                .etcd_compaction_interval_ms = STORE_ETCD_COMPACTION_INTERVAL_DEFAULT_MS,
                .event_ttl_ms = 3600 * 1000, /* K8S: --event-ttl 1h */
                .max_connections = HTTP_SERVER_DEFAULT_MAX_CONNECTIONS,
                .max_connections_per_client = HTTP_SERVER_DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
                .tls_handshake_timeout_ms = HTTP_SERVER_DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS,
                .request_head_timeout_ms = HTTP_SERVER_DEFAULT_REQUEST_HEAD_TIMEOUT_MS,
                .idle_timeout_ms = HTTP_SERVER_DEFAULT_IDLE_TIMEOUT_S * 1000,
                .max_requests_inflight = INFLIGHT_DEFAULT_READONLY,
                .max_mutating_requests_inflight = INFLIGHT_DEFAULT_MUTATING,
                .authorization_mode = AUTHZ_DEFAULT_MODES,
                .leader_elect = -1,
                .cluster_cidr = NETWORK_DEFAULT_POD_CIDR,
                .agent = NODE_AGENT_FLAGS_DEFAULT,
        };
        cleanup_error struct error *err = NULL;
        cleanup_free char *db = NULL, *url = NULL, *host = NULL, *kubeconfig = NULL, *bare = NULL;
        cleanup_free char *pki_dir = NULL;
        char identity[LEADER_ELECTION_IDENTITY_MAX];
        char hostname[HOST_NAME_MAX + 1] = "localhost";
        struct pki *pki = NULL;
        struct store *store = NULL;
        struct apiserver *api = NULL;
        struct authn *authn = NULL;
        struct authz *authz = NULL;
        struct rbac *rbac = NULL;
        struct jws_signer *sa_signer = NULL;
        struct http_server *http = NULL, *pod_http = NULL;
        struct pod_network *network = NULL;
        char node_pod_cidr[20] = "";
        struct controller_set kcm = { 0 }, scheduling = { 0 };
        struct informer_feed *feed = NULL;
        struct api_loopback *loopback = NULL;
        struct api_client *admin = NULL;
        struct leader_election *kcm_election = NULL, *scheduler_election = NULL;
        struct node_agent *agent = NULL;
        struct route_keeper *routes = NULL;
        cleanup_metrics_registry struct metrics_registry *metrics = metrics_registry_new();
        cleanup_audit struct audit *audit = NULL;
        cleanup_free char *ca_file = NULL, *node_name_default = NULL;
        cleanup_free char *node_cert = NULL, *node_key = NULL;
        cleanup_free char *admin_cert = NULL, *admin_key = NULL;
        cleanup_free char *sched_cert = NULL, *sched_key = NULL;
        cleanup_free char *manager_cert = NULL, *manager_key = NULL;
        sigset_t sigs;
        int sig, r, exit_code = 1;

        if (parse_flags(command, argc, argv, &f) < 0)
                return 2;
        leader_election_identity(identity);
        {
                const struct leader_election_config lc = {
                        .name = LEADER_ELECTION_CONTROLLER_MANAGER,
                        .identity = identity,
                        .lease_duration_ms = f.leader_elect_lease_duration_ms,
                        .renew_deadline_ms = f.leader_elect_renew_deadline_ms,
                        .retry_period_ms = f.leader_elect_retry_period_ms,
                };

                if (leader_election_config_check(&lc, &err) < 0) {
                        (void) fprintf(stderr, "flexlet %s: %s\n", command, err->message);
                        return 2;
                }
        }
        /* The audit log before anything else starts: a policy that does not load refuses the
         * start (K8S AuditOptions.ApplyTo). A policy without a log path is checked and has
         * nothing to write to, as upstream's without a backend. */
        if (f.audit_log_path) {
                const struct audit_options ao = {
                        .policy_file = f.audit_policy_file,
                        .log = { .path = f.audit_log_path,
                                 .max_size_mb = f.audit_log_maxsize,
                                 .max_backups = f.audit_log_maxbackup,
                                 .max_age_days = f.audit_log_maxage },
                        .metrics = metrics,
                };
                r = audit_new(&ao, &audit, &err);
        } else if (f.audit_policy_file) {
                struct audit_policy *policy = NULL;
                r = audit_policy_load(f.audit_policy_file, &policy, &err);
                audit_policy_free(policy);
        } else {
                r = 0;
        }
        if (r < 0) {
                (void) fprintf(stderr, "flexlet %s: %s\n", command, err->message);
                return 1;
        }
        /* Block the shutdown signals before any thread starts, so sigwait() receives them. */
        sigemptyset(&sigs);
        sigaddset(&sigs, SIGINT);
        sigaddset(&sigs, SIGTERM);
        (void) pthread_sigmask(SIG_BLOCK, &sigs, NULL);
        (void) signal(SIGPIPE, SIG_IGN);
        raise_fd_limit(f.max_connections);
        (void) gethostname(hostname, sizeof(hostname));
        if (!f.node_name) {
                /* K8S: nodeutil.GetHostname: the host name, trimmed and lowercased */
                struct field_error_list errs;

                node_name_default = xstrdup(hostname);
                for (char *c = node_name_default; *c; c++)
                        *c = (char) tolower((unsigned char) *c);
                f.node_name = node_name_default;
                field_error_list_init(&errs);
                if (with_node && validate_dns1123_subdomain(f.node_name, "metadata.name", &errs)) {
                        cleanup_free char *why = field_error_list_string(&errs);
                        (void) fprintf(
                                stderr,
                                "flexlet %s: the host name \"%s\" cannot name the node (%s); "
                                "give one with --node-name\n",
                                command, hostname, why);
                        field_error_list_release(&errs);
                        return 2;
                }
                field_error_list_release(&errs);
        }
        if (mkdir(f.data_dir, 0700) < 0 && errno != EEXIST) {
                (void) fprintf(stderr, "flexlet %s: data dir \"%s\": %s\n", command, f.data_dir,
                               strerror(errno));
                return 1;
        }

        {
                /* the node IPAM controller's options, checked before anything starts */
                struct cidr_set check;

                if (cidr_set_init(&check, f.cluster_cidr,
                                  f.node_cidr_mask_size ?: NODE_IPAM_DEFAULT_MASK_SIZE, &err) < 0) {
                        (void) fprintf(stderr, "flexlet %s: %s\n", command, err->message);
                        return 2;
                }
                cidr_set_release(&check);
        }
        db = xasprintf("%s/store.db", f.data_dir);
        {
                const struct store_options so = {
                        .watch_window_bytes = (size_t) f.watch_cache_bytes,
                        .watch_queue_bytes = (size_t) f.watch_cache_bytes / 4,
                };
                const struct store_etcd_options eo = {
                        .endpoints = f.etcd_endpoints,
                        .cafile = f.etcd_cafile,
                        .certfile = f.etcd_certfile,
                        .keyfile = f.etcd_keyfile,
                        .compaction_interval_ms = f.etcd_compaction_interval_ms,
                };

                if (streq(f.store, "etcd"))
                        r = store_open_etcd(&eo, &so, &store, &err);
                else
                        r = store_open_sqlite_with(db, &so, &store, &err);
                /* K8S: events expire (--event-ttl); the SQLite store keeps them, as it did */
                if (r >= 0)
                        (void) store_set_ttl(store, "events", f.event_ttl_ms / 1000);
        }
        if (r < 0) {
                (void) fprintf(stderr, "flexlet %s: store: %s\n", command, err->message);
                return 1;
        }

        /* The pods' network next: its bridge carries the address where pods reach the API
         * server, which the serving certificate names and a second listener binds. Its range is
         * the Node's podCIDR, which the node IPAM controller will give it (node_pod_cidr). */
        if (with_node) {
                struct network_options nopts = { .data_dir = f.data_dir,
                                                 .pod_cidr = node_pod_cidr,
                                                 .cluster_cidr = f.cluster_cidr,
                                                 .bridge = f.pod_bridge };

                r = serve_node_pod_cidr(store, &f, node_pod_cidr, &err);
                if (r >= 0)
                        r = pod_network_open(&nopts, &network, &err);
                if (r < 0) {
                        (void) fprintf(stderr, "flexlet %s: %s\n", command, err->message);
                        store_close(store);
                        return 1;
                }
                (void) fprintf(stderr, "flexlet %s: node %s: pods in %s\n", command, f.node_name,
                               node_pod_cidr);
        }
        host = client_host(f.listen);
        url = xasprintf("https://%s:%s", host, strrchr(f.listen, ':') + 1);
        bare = xstrdup(host[0] == '[' ? host + 1 : host);
        if (bare[0] && bare[strlen(bare) - 1] == ']')
                bare[strlen(bare) - 1] = '\0';
        {
                const char *dns[] = { "localhost", NULL, NULL };
                const char *ips[] = { "127.0.0.1", "::1", NULL, NULL, NULL, NULL };
                struct pki_options po = { .data_dir = f.data_dir,
                                          .pki_dir = f.pki_dir,
                                          .dns_names = dns,
                                          .ip_addresses = ips,
                                          .server_url = url,
                                          .node_name = with_node ? f.node_name : NULL };
                size_t n = 2;
                char node_ip[64];

                /* A host name that is no DNS name ("(none)" in a bare VM) cannot be a SAN; the
                 * certificate does without it (clients reach the server by address). */
                if (pki_dns_name_valid(hostname))
                        dns[1] = hostname;
                else
                        (void) fprintf(stderr,
                                       "flexlet %s: the host name \"%s\" is not a valid DNS name; "
                                       "the serving certificate leaves it out\n",
                                       command, hostname);
                if (!streq(bare, "127.0.0.1") && !streq(bare, "::1") && !streq(bare, "localhost"))
                        ips[n++] = bare;
                /* The node's kubelet endpoint serves with the same certificate, at the node's
                 * InternalIP, which the apiserver verifies when it proxies logs. */
                node_host_ip(node_ip, sizeof(node_ip));
                if (with_node && !streq(node_ip, "127.0.0.1") && !streq(node_ip, bare))
                        ips[n++] = node_ip;
                /* pods reach the API server at the bridge's address */
                if (network && !streq(pod_network_gateway(network), bare))
                        ips[n++] = pod_network_gateway(network);
                r = pki_ensure(&po, &pki, &err);
        }
        if (r < 0) {
                (void) fprintf(stderr, "flexlet %s: credentials: %s\n", command, err->message);
                pod_network_free(network);
                store_close(store);
                return 1;
        }

        pki_dir = f.pki_dir ? xstrdup(f.pki_dir) : xasprintf("%s/pki", f.data_dir);
        ca_file = xasprintf("%s/ca.crt", pki_dir);
        node_cert = xasprintf("%s/%s", pki_dir, PKI_NODE_CERT_FILE);
        node_key = xasprintf("%s/%s", pki_dir, PKI_NODE_KEY_FILE);
        admin_cert = xasprintf("%s/%s", pki_dir, PKI_ADMIN_CERT_FILE);
        admin_key = xasprintf("%s/%s", pki_dir, PKI_ADMIN_KEY_FILE);
        sched_cert = xasprintf("%s/%s", pki_dir, PKI_SCHEDULER_CERT_FILE);
        sched_key = xasprintf("%s/%s", pki_dir, PKI_SCHEDULER_KEY_FILE);
        manager_cert = xasprintf("%s/%s", pki_dir, PKI_CONTROLLER_MANAGER_CERT_FILE);
        manager_key = xasprintf("%s/%s", pki_dir, PKI_CONTROLLER_MANAGER_KEY_FILE);
        r = jws_signer_new(pki_sa_key_pem(pki), &sa_signer, &err);
        if (r < 0)
                (void) error_wrap(&err, "credentials");
        else if ((r = authn_new(pki, f.token_auth_file, sa_signer, store, &authn, &err)) < 0)
                (void) error_wrap(&err, "--token-auth-file");
        /* the bootstrap policy is in place before anything is authorized */
        if (r >= 0)
                r = rbac_bootstrap_reconcile(store, &err);
        if (r >= 0)
                r = rbac_new(store, &rbac, &err);
        if (r >= 0) {
                const struct authz_context zc = { .store = store, .rbac = rbac };

                if ((r = authz_new(f.authorization_mode, &zc, &authz, &err)) < 0)
                        (void) error_wrap(&err, "--authorization-mode");
        }
        if (r < 0) {
                (void) fprintf(stderr, "flexlet %s: %s\n", command, err->message);
                rbac_free(rbac);
                authn_free(authn);
                jws_signer_free(sa_signer);
                store_close(store);
                pki_free(pki);
                pod_network_free(network);
                return 1;
        }
        {
                /* pods/log reaches kubelets whose certificates the cluster CA signed, with a
                 * token only the kubelet endpoints take (no API credential: the node agent
                 * holds it) */
                struct apiserver_options ao = { .node_name = f.node_name,
                                                .listen = f.listen,
                                                .require_auth = true,
                                                .authn = authn,
                                                .authz = authz,
                                                .rbac = rbac,
                                                .sa_signer = sa_signer,
                                                .kubelet_ca_file = ca_file,
                                                .kubelet_token = pki_kubelet_token(pki),
                                                /* joined nodes take the admin's certificate */
                                                .kubelet_client_cert_file = admin_cert,
                                                .kubelet_client_key_file = admin_key,
                                                .metrics = metrics,
                                                .max_requests_inflight = f.max_requests_inflight,
                                                .max_mutating_requests_inflight =
                                                        f.max_mutating_requests_inflight,
                                                .audit = audit };
                (void) apiserver_new(store, pki, &ao, &api);
        }
        struct http_server_options ho = { .listen = f.listen,
                                          .cert_pem = pki_server_cert_pem(pki),
                                          .key_pem = pki_server_key_pem(pki),
                                          .client_ca_pem = pki_ca_cert_pem(pki),
                                          .handler = api_handle,
                                          .ud = api,
                                          .max_body_bytes = API_MAX_BODY_BYTES,
                                          .max_connections = f.max_connections,
                                          .max_connections_per_client =
                                                  f.max_connections_per_client,
                                          .tls_handshake_timeout_ms = f.tls_handshake_timeout_ms,
                                          .request_head_timeout_ms = f.request_head_timeout_ms,
                                          /* whole seconds, at least one */
                                          .idle_timeout_s = (f.idle_timeout_ms + 999) / 1000 };
        r = http_server_start(&ho, &http, &err);
        /* Pods reach the API server at the bridge's address, on the same port and with the same
         * limits, unless the main listener already covers it (a wildcard, or that very
         * address). */
        if (r >= 0 && network && !listen_is_wildcard(f.listen) &&
            !streq(bare, pod_network_gateway(network))) {
                cleanup_free char *pod_listen = xasprintf("%s:%s", pod_network_gateway(network),
                                                          strrchr(f.listen, ':') + 1);

                ho.listen = pod_listen;
                r = http_server_start(&ho, &pod_http, &err);
                if (r < 0)
                        (void) error_wrap(&err, "the listener for pods");
        }
        if (r < 0) {
                (void) fprintf(stderr, "flexlet %s: %s\n", command, err->message);
                goto stop;
        }
        /* K8S: the server's own requests (the system namespaces, kube-apiserver's
         * SystemNamespaces controller, and what kubeadm adds: the default StorageClass, the
         * control-plane label, the node token) are sent with its loopback credential,
         * system:apiserver, through the loopback (the in-process path every component below
         * takes: straight to the server's handler, not over HTTPS) */
        loopback = api_loopback_new(api);
        {
                const struct api_client_options admin_co = {
                        .server_url = url,
                        .ca_file = ca_file,
                        .token = authn_loopback_token(authn),
                        .loopback = loopback,
                };

                r = api_client_new(&admin_co, &admin, &err);
        }
        if (r < 0) {
                (void) fprintf(stderr, "flexlet %s: %s\n", command, err->message);
                goto stop;
        }
        bootstrap_namespace(admin, "default");
        bootstrap_namespace(admin, "kube-system");
        bootstrap_namespace(admin, "kube-public");
        bootstrap_namespace(admin, "kube-node-lease");
        bootstrap_storage_class(admin);
        /* what other machines join with (`flexlet node`, docs/joining-nodes.md) */
        if (node_token_publish(admin, f.data_dir, pki_ca_cert_pem(pki), url, &err) < 0) {
                (void) fprintf(stderr, "flexlet %s: node token: %s\n", command, err->message);
                goto stop;
        }
        /* The controllers write as API clients like any other, each with its own identity
         * (docs/rbac.md): the scheduler its client certificate, every controller a token of its
         * own service account in kube-system that the controller manager's certificate asks
         * for, as kube-controller-manager --use-service-account-credentials; their requests go
         * through the loopback, straight to the server's handler with those credentials, not
         * over HTTPS. Their informers list and watch through the feed, from the store's watch
         * cache, sharing its objects (docs/api.md, "How the controllers read"). Each set
         * campaigns for its Lease with its own certificate. */
        {
                feed = informer_feed_new(store);
                kcm = (struct controller_set){ .command = command,
                                               .f = &f,
                                               .co = { .server_url = url,
                                                       .ca_file = ca_file,
                                                       .cert_file = manager_cert,
                                                       .key_file = manager_key,
                                                       .feed = feed,
                                                       .loopback = loopback },
                                               .pki = pki,
                                               .metrics = metrics,
                                               .with_node = with_node,
                                               .node_pod_cidr = with_node ? node_pod_cidr : NULL };
                scheduling = kcm;
                scheduling.co.cert_file = sched_cert;
                scheduling.co.key_file = sched_key;
                scheduling.scheduler_only = true;
                if (f.leader_elect)
                        (void) fprintf(stderr, "flexlet %s: leader election as %s (leases in %s)\n",
                                       command, identity, LEADER_ELECTION_NAMESPACE);
                /* K8S: kube-scheduler and kube-controller-manager, each on its own Lease */
                r = controllers_run(&scheduling, LEADER_ELECTION_SCHEDULER, identity,
                                    &scheduler_election);
                if (r >= 0)
                        r = controllers_run(&kcm, LEADER_ELECTION_CONTROLLER_MANAGER, identity,
                                            &kcm_election);
        }
        if (r < 0)
                goto stop;
        if (with_node) {
                struct node_agent_options no = {
                        .metrics = metrics,
                        .kubelet_cert_pem = pki_server_cert_pem(pki),
                        .kubelet_key_pem = pki_server_key_pem(pki),
                        .server_url = url,
                        .ca_file = ca_file,
                        /* its own identity, system:node:NAME (pki.h), not the admin's */
                        .cert_file = node_cert,
                        .key_file = node_key,
                        .kubelet_token = pki_kubelet_token(pki),
                        .node_name = f.node_name,
                        .data_dir = f.data_dir,
                        .cgroup_root = f.cgroup_root,
                        .allocatable = f.allocatable,
                        .feature_gates = f.feature_gates,
                        .network = network,
                        .service_host = network ? pod_network_gateway(network) : NULL,
                        .service_port = (unsigned) strtoul(strrchr(f.listen, ':') + 1, NULL, 10),
                        /* in the server's process: its pods, claims and volumes from the feed,
                         * its requests through the loopback */
                        .feed = feed,
                        .loopback = loopback,
                };
                node_agent_flags_apply(&f.agent, &no);
                r = node_agent_start(&no, &agent, &err);
                if (r < 0) {
                        (void) fprintf(stderr, "flexlet %s: node agent: %s\n", command,
                                       err->message);
                        goto stop;
                }
                mark_control_plane(admin, f.node_name);
                /* routes to the pods of nodes that joined (docs/networking.md) */
                {
                        const struct api_client_options rco = { .server_url = url,
                                                                .ca_file = ca_file,
                                                                .cert_file = node_cert,
                                                                .key_file = node_key,
                                                                .feed = feed,
                                                                .loopback = loopback };
                        char node_ip[64];

                        node_host_ip(node_ip, sizeof(node_ip));
                        r = route_keeper_start(&rco,
                                               &(struct route_keeper_options){
                                                       .node_name = f.node_name,
                                                       .node_ip = node_ip,
                                                       .bridge = pod_network_bridge(network) },
                                               &routes, &err);
                        if (r < 0) {
                                (void) fprintf(stderr, "flexlet %s: %s\n", command, err->message);
                                goto stop;
                        }
                }
        }
        /* Under serve the node is registered Ready by now, so ready means a usable cluster. */
        apiserver_set_ready(api, true);

        kubeconfig = xasprintf("%s/kubeconfig", f.data_dir);
        (void) fprintf(stderr, "flexlet: serving %s (node %s); export KUBECONFIG=%s\n", url,
                       f.node_name, kubeconfig);

        sig = cmd_wait_signal(&sigs, release_unused, store);
        (void) fprintf(stderr, "flexlet: %s, shutting down\n", strsignal(sig));
        exit_code = 0;

stop:
        /* What is left to write (Leases released, the followers' last reads) fails at once
         * when no store member answers, instead of each waiting out the retry window. */
        if (store)
                store_stop_retrying(store);
        /* Every part that started, in reverse (each stop takes NULL for one that did not). */
        route_keeper_stop(routes);
        node_agent_stop(agent);
        /* an election stops its set, then releases the Lease while the server still serves */
        leader_election_stop(kcm_election);
        leader_election_stop(scheduler_election);
        controllers_stop(&kcm);
        controllers_stop(&scheduling);
        /* every informer on the feed has stopped and its threads are joined: nothing reads the
         * store through it any more */
        feed = informer_feed_free(feed);
        admin = api_client_free(admin);
        loopback = api_loopback_free(loopback);
        /* the watch streams still open end now, so the HTTP server need not wait for them */
        if (store)
                store_end_watches(store);
        http_server_stop(pod_http);
        http_server_stop(http);
        apiserver_free(api);
        authz_free(authz);
        rbac_free(rbac);
        authn_free(authn);
        jws_signer_free(sa_signer);
        store_close(store);
        pki_free(pki);
        pod_network_free(network);
        return exit_code;
}

int cmd_serve(int argc, char **argv)
{
        return run_server("serve", true, argc, argv);
}

int cmd_apiserver(int argc, char **argv)
{
        return run_server("apiserver", false, argc, argv);
}
