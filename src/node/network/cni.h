/* cni.h: the runtime's side of the Container Network Interface (CNI specification 1.0.0,
 * github.com/containernetworking/cni SPEC.md): runs the plugins of a network configuration list
 * for ADD, CHECK and DEL as its section 3 says, and parses what they answer (section 5).
 *
 * Why our own: Debian packages the plugins (containernetworking-plugins) but no C library for
 * the runtime's side; libcni is Go. The protocol is small: exec a binary with six environment
 * variables and a JSON document on stdin, read a JSON document from stdout.
 *
 * What the caller gives (borrowed for the call):
 * - the configuration list as JSON ({cniVersion, name, plugins: [...]}, checked here);
 * - one attachment: container id, netns path, interface name, CNI_ARGS pairs and the
 *   capability arguments the runtime offers (e.g. portMappings), inserted as `runtimeConfig`
 *   into each plugin that declares the capability;
 * - the plugin search path (CNI_PATH).
 *
 * Errors: -errno with a message that reads as libcni's: `plugin type="bridge" failed (add):
 * <msg>[; <details>]` (`name="…"` too when the plugin has one; "(delete)", "(check)"); -EIO
 * for a plugin's error, -EAGAIN for its code 11 (try again later), -ENOENT for a plugin not in
 * the path, -EBADMSG for a result that does not parse. A plugin that runs over CNI_TIMEOUT_MS is
 * killed and -ETIMEDOUT. Plugins run with stdin, stdout and stderr only, the default signal
 * mask and dispositions. Thread-safe: no global state. */
#ifndef FLEXLET_NODE_NETWORK_CNI_H
#define FLEXLET_NODE_NETWORK_CNI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* what one plugin may write, and a result we keep: anything larger is not a CNI result */
#define CNI_OUTPUT_MAX (256 * 1024)
/* entries of each list of a result */
#define CNI_RESULT_MAX_ENTRIES 64
#define CNI_TIMEOUT_MS         60000

/* ------------------------------------------------------------------ results (pure) */

struct cni_interface {
        char *name;
        char *mac;     /* "" when absent */
        char *sandbox; /* the netns path for an interface inside it; "" on the host */
};

struct cni_ip {
        char *address;  /* CIDR, as the plugin wrote it: "10.88.0.5/16" */
        char *ip;       /* the address alone, as inet_ntop prints it: "10.88.0.5" */
        int family;     /* AF_INET or AF_INET6 */
        char *gateway;  /* NULL when absent */
        long interface; /* index into interfaces, -1 when absent */
};

struct cni_route {
        char *dst; /* CIDR */
        char *gw;  /* NULL when absent */
};

struct cni_result {
        char *cni_version;
        struct cni_interface *interfaces;
        size_t n_interfaces;
        struct cni_ip *ips;
        size_t n_ips;
        struct cni_route *routes;
        size_t n_routes;
        json_t *json; /* the document itself, to pass on as prevResult */
};

/* Parses a Success result (section 5): cniVersion required; every address a valid CIDR, every
 * gateway and route next hop a valid IP, every interface index inside interfaces; at most
 * CNI_RESULT_MAX_ENTRIES entries per list and CNI_OUTPUT_MAX bytes. An IPAM plugin's
 * abbreviated result (no interfaces) parses too. -EBADMSG with the reason otherwise; *ret is
 * set only on success (release with cni_result_release). */
int cni_result_parse(const char *data, size_t len, struct cni_result *ret, struct error **reterr);
void cni_result_release(struct cni_result *r);

/* The IPs of the pod: those on the interface named ifname inside the sandbox (as containerd
 * selects them), IPv4 first (K8S: podIPs lists at most one per family, the primary first).
 * Borrowed from r; returns how many were stored (<= max). */
size_t cni_result_pod_ips(const struct cni_result *r, const char *ifname, const char **ips,
                          size_t max);

/* The words of a failed plugin: an Error result's "msg; details" (or "msg"), else its output
 * (or stderr when it wrote nothing to stdout) trimmed, else "exit status N". Caller frees. Never
 * NULL. ret_code gets the error's code when there is one, else 0. */
char *cni_error_message(const char *out, size_t out_len, const char *err, size_t err_len,
                        int exit_status, long *ret_code);

/* ------------------------------------------------------------------ running plugins */

enum cni_command { CNI_ADD, CNI_DEL, CNI_CHECK, CNI_COMMAND_MAX };
const char *cni_command_to_string(enum cni_command c); /* "ADD", "DEL", "CHECK" */

struct cni_attachment {
        const char *container_id; /* [A-Za-z0-9][A-Za-z0-9_.-]* */
        const char *netns;        /* path of the network namespace; "" on DEL when it is gone */
        const char *ifname;       /* "eth0", "lo" */
        const char *const *args;  /* CNI_ARGS as "K=V" strings (NULL-terminated) or NULL */
        /* capability arguments offered: {"portMappings": [...]}; NULL: none */
        const json_t *capabilities;
};

/* Checks a configuration list: cniVersion and name strings, a non-empty plugins array whose
 * entries are objects with a plugin name for type (no '/', not "." or ".."). */
int cni_conflist_check(const json_t *conflist, struct error **reterr);

/* The configuration one plugin of the list is run with (section 3, "Deriving execution
 * configuration"): the plugin's own fields without `capabilities`, plus cniVersion and name of
 * the list, runtimeConfig (the offered capabilities the plugin declares) and prevResult (when
 * not NULL). New reference. */
json_t *cni_plugin_config(const json_t *conflist, const json_t *plugin, const json_t *capabilities,
                          const json_t *prev_result);

/* ADD: every plugin in order, each given the previous one's result; the last result is the
 * attachment's (*ret). On a failure nothing is undone here: the caller runs cni_list_del (the
 * specification requires a DEL after a failed ADD too). */
int cni_list_add(const char *cni_path, const json_t *conflist, const struct cni_attachment *a,
                 struct cni_result *ret, struct error **reterr);
/* CHECK: every plugin in order with prev_result (the ADD's), unless the list sets
 * disableCheck. */
int cni_list_check(const char *cni_path, const json_t *conflist, const struct cni_attachment *a,
                   const json_t *prev_result, struct error **reterr);
/* DEL: every plugin in reverse order with prev_result (the ADD's, NULL when there is none).
 * Plugins accept repeated DELs, so this is idempotent; it stops at the first failure. */
int cni_list_del(const char *cni_path, const json_t *conflist, const struct cni_attachment *a,
                 const json_t *prev_result, struct error **reterr);

#endif
