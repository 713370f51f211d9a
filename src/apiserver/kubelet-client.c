/* kubelet-client.c: a node's kubelet URL and the credentials to reach it (kubelet-client.h).
 * What is sent to the kubelet and how its answer is relayed is each caller's business. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "apiserver/apiserver-internal.h"
#include "apiserver/kubelet-client.h"
#include "base/alloc.h"
#include "base/json.h"

/* Returns the address (borrowed from node) or NULL. */
static const char *node_address(const json_t *node)
{
        static const char *const types[] = { "InternalIP", "ExternalIP", "Hostname" };
        const json_t *addrs = json_path(node, "status.addresses");

        for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
                const json_t *a;
                size_t i;

                json_array_foreach(addrs, i, a) {
                        const char *type = json_string_value(json_object_get(a, "type"));
                        const char *addr = json_string_value(json_object_get(a, "address"));
                        if (type && addr && *addr && streq(type, types[t]))
                                return addr;
                }
        }
        return NULL;
}

char *kubelet_node_url(const json_t *node, struct error **reterr)
{
        const char *addr = node_address(node);
        const json_t *port_j;
        long long port = 0;

        if (!addr) {
                /* K8S nodeutil.GetPreferredNodeAddress's NoMatchError */
                cleanup_free char *known = json_dump_compact(json_path(node, "status.addresses"));
                (void) error_set(reterr, EIO, "no preferred addresses found; known addresses: %s",
                                 known ? known : "[]");
                return NULL;
        }
        port_j = json_path(node, "status.daemonEndpoints.kubeletEndpoint.Port");
        if (json_is_integer(port_j))
                port = json_integer_value(port_j);
        if (port <= 0 || port > 65535)
                port = KUBELET_DEFAULT_PORT;
        return strchr(addr, ':') ? xasprintf("https://[%s]:%lld", addr, port)
                                 : xasprintf("https://%s:%lld", addr, port);
}

struct api_client_options kubelet_client_options(const struct apiserver *s, bool insecure)
{
        return (struct api_client_options){ .ca_file = s->opts.kubelet_ca_file,
                                            .token = s->opts.kubelet_token,
                                            .cert_file = s->opts.kubelet_client_cert_file,
                                            .key_file = s->opts.kubelet_client_key_file,
                                            .insecure_skip_verify = insecure };
}
