/* node.c: `flexlet node`, a node agent joining a cluster run elsewhere: the TLS bootstrap with
 * the join token (node/bootstrap.h), the Node registered with its own client certificate, a
 * serving certificate for its kubelet endpoint, then the same agent serve runs, as
 * system:node:NAME, against the given API servers (failing over between them), until
 * SIGINT/SIGTERM. */
#include <ctype.h>
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
#include "client/client.h"
#include "cmd/cmd.h"
#include "node/agent.h"
#include "node/bootstrap.h"
#include "node/node-status.h"

struct node_flags {
        const char *servers;
        const char *token_file;
        const char *data_dir;
        const char *node_name;
        const char *cgroup_root;
        const char *kubelet_listen;
        const char *allocatable;
        const char *feature_gates;
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
                "  --feature-gates LIST    Name=true|false,...\n");
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
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
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

int cmd_node(int argc, char **argv)
{
        struct node_flags f = { .data_dir = "/var/lib/flexlet-node",
                                .cgroup_root = "flexlet",
                                .kubelet_listen = "0.0.0.0:10250" };
        cleanup_error struct error *err = NULL;
        cleanup_free char *node_name_default = NULL, *ca_file = NULL, *cert_file = NULL;
        cleanup_free char *key_file = NULL, *serving_cert = NULL, *serving_key = NULL;
        cleanup_free char *ca_pem = NULL;
        char hostname[HOST_NAME_MAX + 1] = "localhost", ip[64];
        struct node_agent *agent = NULL;
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
                };
                r = node_agent_start(&no, &agent, &err);
                if (r < 0) {
                        (void) fprintf(stderr, "flexlet node: node agent: %s\n", err->message);
                        return 1;
                }
        }
        (void) fprintf(stderr, "flexlet node: node %s joined %s\n", f.node_name, f.servers);
        (void) sigwait(&sigs, &sig);
        (void) fprintf(stderr, "flexlet node: %s, shutting down\n", strsignal(sig));
        node_agent_stop(agent);
        return 0;
}
