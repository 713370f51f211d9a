/* node-token.c: the join token and the objects a joining node reads (node-token.h), made at
 * every start of a server through its own handler. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/macro.h"
#include "client/client.h"
#include "client/join-token.h"
#include "cmd/node-token.h"

#define TOKEN_FILE   "node-token"
#define CLUSTER_INFO "cluster-info"
#define INFO_ROLE    "flexlet:bootstrap-signer-clusterinfo"

/* Creates body at path; an existing object is fine (merge-patched with body when replace_path
 * is given, so that a changed server address or CA is published). */
static int ensure(struct api_client *admin, const char *path, const char *replace_path,
                  const json_t *body, struct error **reterr)
{
        cleanup_free char *text = json_dump_compact(body);
        cleanup_json json_t *answer = NULL;
        long status = 0;
        int r;

        r = api_client_request(admin, "POST", path, "application/json", text, strlen(text), &status,
                               &answer, reterr);
        if (r >= 0 && status == 409 && replace_path) {
                json_decref(answer);
                answer = NULL;
                path = replace_path;
                r = api_client_request(admin, "PATCH", path, "application/merge-patch+json", text,
                                       strlen(text), &status, &answer, reterr);
        }
        if (r < 0)
                return r;
        if (status == 201 || status == 200 || status == 409)
                return 0;
        return error_set(reterr, EIO, "%s: HTTP %ld: %s", path, status,
                         json_string_value(json_object_get(answer, "message")) ?: "");
}

static json_t *b64(const char *s)
{
        cleanup_free char *e = base64_encode(s, strlen(s));
        return json_string(e);
}

/* The token of DATA_DIR/node-token when it is one for this CA; else a new one, written. */
static int load_or_make(const char *data_dir, const char *ca_pem, struct join_token *ret,
                        struct error **reterr)
{
        cleanup_close int dfd = open(data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_free char *text = NULL, *line = NULL;
        char hash[JOIN_TOKEN_HASH_LEN + 1];
        size_t len = 0;
        int r;

        if (dfd < 0)
                return error_set(reterr, errno, "data dir \"%s\": %s", data_dir, strerror(errno));
        join_token_ca_hash(ca_pem, strlen(ca_pem), hash);
        r = fs_read_file_at(dfd, TOKEN_FILE, JOIN_TOKEN_MAX_BYTES, &text, &len);
        if (r >= 0 && join_token_parse(text, len, ret, NULL) == 0 && streq(ret->ca_hash, hash))
                return 0;
        if (r < 0 && r != -ENOENT && r != -EFBIG)
                return error_set(reterr, -r, "reading \"%s/%s\": %s", data_dir, TOKEN_FILE,
                                 strerror(-r));
        memset(ret, 0, sizeof(*ret));
        r = join_token_generate(ret->id, ret->secret);
        if (r < 0)
                return error_set(reterr, -r, "making a node token: no random bytes");
        memcpy(ret->ca_hash, hash, sizeof(hash));
        line = xasprintf(JOIN_TOKEN_PREFIX "%s::%s.%s\n", hash, ret->id, ret->secret);
        r = fs_write_file_atomic_mode(dfd, TOKEN_FILE, line, strlen(line), 0600);
        explicit_bzero(line, strlen(line));
        if (r < 0)
                return error_set(reterr, -r, "writing \"%s/%s\": %s", data_dir, TOKEN_FILE,
                                 strerror(-r));
        return 0;
}

int node_token_publish(struct api_client *admin, const char *data_dir, const char *ca_pem,
                       const char *server_url, struct error **reterr)
{
        struct join_token tok;
        cleanup_free char *secret_name = NULL, *kubeconfig = NULL, *ca_b64 = NULL;
        cleanup_json json_t *secret = NULL, *info = NULL, *role = NULL, *binding = NULL;
        int r;

        r = load_or_make(data_dir, ca_pem, &tok, reterr);
        if (r < 0)
                return r;
        /* K8S: kubeadm's bootstrap token Secret (cluster-bootstrap/token/api) */
        secret_name = xasprintf("bootstrap-token-%s", tok.id);
        secret = json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:{s:o, s:o, s:o, s:o, s:o, s:o}}",
                           "apiVersion", "v1", "kind", "Secret", "metadata", "name", secret_name,
                           "namespace", "kube-system", "type", "bootstrap.kubernetes.io/token",
                           "data", "token-id", b64(tok.id), "token-secret", b64(tok.secret),
                           "usage-bootstrap-authentication", b64("true"), "usage-bootstrap-signing",
                           b64("true"), "auth-extra-groups", b64(NODE_TOKEN_GROUP), "description",
                           b64("flexlet's node join token (DATA_DIR/node-token)"));
        r = ensure(admin, "/api/v1/namespaces/kube-system/secrets", NULL, secret, reterr);
        explicit_bzero(tok.secret, sizeof(tok.secret));
        if (r < 0)
                return r;
        /* K8S: kubeadm's cluster-info: a kubeconfig naming the server and its CA */
        ca_b64 = base64_encode(ca_pem, strlen(ca_pem));
        kubeconfig = xasprintf("apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n"
                               "    certificate-authority-data: %s\n    server: %s\n"
                               "  name: \"\"\ncontexts: null\ncurrent-context: \"\"\n"
                               "preferences: {}\nusers: null\n",
                               ca_b64, server_url);
        info = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s}}", "apiVersion", "v1", "kind",
                         "ConfigMap", "metadata", "name", CLUSTER_INFO, "namespace", "kube-public",
                         "data", "kubeconfig", kubeconfig);
        r = ensure(admin, "/api/v1/namespaces/kube-public/configmaps",
                   "/api/v1/namespaces/kube-public/configmaps/" CLUSTER_INFO, info, reterr);
        if (r < 0)
                return r;
        role = json_pack("{s:s, s:s, s:{s:s, s:s}, s:[{s:[s], s:[s], s:[s], s:[s]}]}", "apiVersion",
                         "rbac.authorization.k8s.io/v1", "kind", "Role", "metadata", "name",
                         INFO_ROLE, "namespace", "kube-public", "rules", "verbs", "get",
                         "apiGroups", "", "resources", "configmaps", "resourceNames", CLUSTER_INFO);
        r = ensure(admin, "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/roles", NULL,
                   role, reterr);
        if (r < 0)
                return r;
        binding = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s}, s:[{s:s, s:s, s:s}]}",
                            "apiVersion", "rbac.authorization.k8s.io/v1", "kind", "RoleBinding",
                            "metadata", "name", INFO_ROLE, "namespace", "kube-public", "roleRef",
                            "apiGroup", "rbac.authorization.k8s.io", "kind", "Role", "name",
                            INFO_ROLE, "subjects", "apiGroup", "rbac.authorization.k8s.io", "kind",
                            "User", "name", "system:anonymous");
        return ensure(admin,
                      "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/rolebindings",
                      NULL, binding, reterr);
}
