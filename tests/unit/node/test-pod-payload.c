/* test-pod-payload.c: the payloads of configMap, secret, downwardAPI and projected volumes as the
 * kubelet's plugins make them, against a fake lookup, table-driven: every key or the items with
 * their modes and defaultMode, binaryData and Secret bytes decoded, optional objects and keys,
 * upstream's messages for what is missing, FormatMap of labels and annotations (sorted, Go
 * quoting), subscripts, resourceFieldRef with divisors and the node's allocatable for an unset
 * limit, projected sources together with errors aggregated, service account token sources
 * (the request made of the pod, the mode with and without fsGroup or one runAsUser, the owner),
 * and the refusals (paths that would leave the volume). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "node/pod-payload.h"

/* ud: {"configmaps": {name: obj}, "secrets": {name: obj}} of namespace "ns" */
static int fake_lookup(void *ud, const char *resource, const char *ns, const char *name,
                       json_t **ret, struct error **reterr)
{
        json_t *obj = json_object_get(json_object_get(ud, resource), name);

        assert_string_equal(ns, "ns");
        if (!obj)
                return error_set(reterr, ENOENT, "%s \"%s\" not found",
                                 streq(resource, "secrets") ? "secret" : "configmap", name);
        *ret = json_incref(obj);
        return 0;
}

/* pod_token_fn: "tok:<audience or api>:<seconds>:<pod uid>:<account>"; audience "down" fails */
static int fake_token(void *ud, const json_t *pod, const char *audience, int64_t seconds,
                      char **ret, struct error **reterr)
{
        if (audience && streq(audience, "down"))
                return error_set(reterr, EIO, "failed to fetch token: the server is down");
        *ret = xasprintf("tok:%s:%lld:%s:%s", audience ? audience : "api", (long long) seconds,
                         json_path_string_or_empty(pod, "metadata.uid"),
                         json_path_string_or_empty(pod, "spec.serviceAccountName"));
        return 0;
}

static const char WORLD[] =
        "{\"configmaps\":{\"cm\":{\"data\":{\"a\":\"1\",\"b\":\"two\"},"
        "\"binaryData\":{\"bin\":\"AAE=\"}}},"
        "\"secrets\":{\"sec\":{\"data\":{\"pw\":\"czNjcmV0\",\"user\":\"YWRtaW4=\"}}}}";

static const char POD[] =
        "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u-1\","
        "\"labels\":{\"z\":\"last\",\"app\":\"a \\\"q\\\"\\n\"},\"annotations\":{}},"
        "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{"
        "\"requests\":{\"cpu\":\"250m\",\"memory\":\"64Mi\"},\"limits\":{\"cpu\":\"1500m\"}}}],"
        "\"initContainers\":[{\"name\":\"init\"}],\"serviceAccountName\":\"sa\"}}";

struct want_file {
        const char *path;
        const char *data;
        size_t len; /* 0: strlen(data) */
        mode_t mode;
};

struct payload_case {
        const char *name;
        const char *volume; /* JSON of a spec.volumes element */
        int r;
        const char *message;       /* r < 0 */
        struct want_file files[6]; /* r >= 0, in payload order */
};

static const struct payload_case cases[] = {
        { "configMap: every key, data then binaryData, mode 0644",
          "{\"configMap\":{\"name\":\"cm\"}}",
          0,
          NULL,
          { { "a", "1", 0, 0644 }, { "b", "two", 0, 0644 }, { "bin", "\0\1", 2, 0644 } } },
        { "configMap items: path, item mode, defaultMode",
          "{\"configMap\":{\"name\":\"cm\",\"defaultMode\":256,\"items\":["
          "{\"key\":\"a\",\"path\":\"d/a.conf\"},{\"key\":\"b\",\"path\":\"b\",\"mode\":384}]}}",
          0,
          NULL,
          { { "d/a.conf", "1", 0, 0400 }, { "b", "two", 0, 0600 } } },
        { "configMap: a missing required object",
          "{\"configMap\":{\"name\":\"nope\"}}",
          -ENOENT,
          "configmap \"nope\" not found",
          { { 0 } } },
        { "configMap: a missing optional object is an empty volume",
          "{\"configMap\":{\"name\":\"nope\",\"optional\":true}}",
          0,
          NULL,
          { { 0 } } },
        { "configMap: a missing key",
          "{\"configMap\":{\"name\":\"cm\",\"items\":[{\"key\":\"x\",\"path\":\"x\"}]}}",
          -ENOENT,
          "configmap references non-existent config key: x",
          { { 0 } } },
        { "configMap: a missing optional key is skipped",
          "{\"configMap\":{\"name\":\"cm\",\"optional\":true,\"items\":["
          "{\"key\":\"x\",\"path\":\"x\"},{\"key\":\"a\",\"path\":\"a\"}]}}",
          0,
          NULL,
          { { "a", "1", 0, 0644 } } },
        { "configMap items: a path leaving the volume",
          "{\"configMap\":{\"name\":\"cm\",\"items\":[{\"key\":\"a\",\"path\":\"../x\"}]}}",
          -EINVAL,
          "invalid path: must not contain '..': ../x",
          { { 0 } } },
        { "configMap items: a path naming ..data",
          "{\"configMap\":{\"name\":\"cm\",\"items\":[{\"key\":\"a\",\"path\":\"..data/x\"}]}}",
          -EINVAL,
          "invalid path: must not start with '..': ..data/x",
          { { 0 } } },
        { "secret: every key decoded, secretName",
          "{\"secret\":{\"secretName\":\"sec\",\"defaultMode\":288}}",
          0,
          NULL,
          { { "pw", "s3cret", 0, 0440 }, { "user", "admin", 0, 0440 } } },
        { "secret: a missing key",
          "{\"secret\":{\"secretName\":\"sec\",\"items\":[{\"key\":\"k\",\"path\":\"k\"}]}}",
          -ENOENT,
          "references non-existent secret key: k",
          { { 0 } } },
        { "secret: a missing object",
          "{\"secret\":{\"secretName\":\"gone\"}}",
          -ENOENT,
          "secret \"gone\" not found",
          { { 0 } } },
        { "downwardAPI: fields, FormatMap sorted and quoted, subscripts",
          "{\"downwardAPI\":{\"items\":["
          "{\"path\":\"labels\",\"fieldRef\":{\"fieldPath\":\"metadata.labels\"}},"
          "{\"path\":\"ann\",\"fieldRef\":{\"fieldPath\":\"metadata.annotations\"}},"
          "{\"path\":\"z\",\"fieldRef\":{\"fieldPath\":\"metadata.labels['z']\"}},"
          "{\"path\":\"none\",\"fieldRef\":{\"fieldPath\":\"metadata.labels['none']\"}},"
          "{\"path\":\"id/uid\",\"mode\":256,\"fieldRef\":{\"fieldPath\":\"metadata.uid\"}},"
          "{\"path\":\"ns\",\"fieldRef\":{\"fieldPath\":\"metadata.namespace\"}}]}}",
          0,
          NULL,
          { { "labels", "app=\"a \\\"q\\\"\\n\"\nz=\"last\"", 0, 0644 },
            { "ann", "", 0, 0644 },
            { "z", "last", 0, 0644 },
            { "none", "", 0, 0644 },
            { "id/uid", "u-1", 0, 0400 },
            { "ns", "ns", 0, 0644 } } },
        { "downwardAPI: resources with divisors, an unset limit is the node's allocatable",
          "{\"downwardAPI\":{\"items\":["
          "{\"path\":\"cpu\",\"resourceFieldRef\":{\"containerName\":\"c\","
          "\"resource\":\"limits.cpu\"}},"
          "{\"path\":\"cpu-m\",\"resourceFieldRef\":{\"containerName\":\"c\","
          "\"resource\":\"requests.cpu\",\"divisor\":\"1m\"}},"
          "{\"path\":\"mem\",\"resourceFieldRef\":{\"containerName\":\"c\","
          "\"resource\":\"limits.memory\",\"divisor\":\"1Mi\"}},"
          "{\"path\":\"req\",\"resourceFieldRef\":{\"containerName\":\"c\","
          "\"resource\":\"requests.memory\",\"divisor\":\"1Mi\"}},"
          "{\"path\":\"init\",\"resourceFieldRef\":{\"containerName\":\"init\","
          "\"resource\":\"requests.cpu\"}}]}}",
          0,
          NULL,
          { { "cpu", "2", 0, 0644 },
            { "cpu-m", "250", 0, 0644 },
            { "mem", "4096", 0, 0644 },
            { "req", "64", 0, 0644 },
            { "init", "0", 0, 0644 } } },
        { "downwardAPI: errors gathered",
          "{\"downwardAPI\":{\"items\":["
          "{\"path\":\"a\",\"fieldRef\":{\"fieldPath\":\"spec.nodeName\"}},"
          "{\"path\":\"b\",\"resourceFieldRef\":{\"containerName\":\"x\","
          "\"resource\":\"limits.cpu\"}}]}}",
          -EINVAL,
          "[unsupported fieldPath: spec.nodeName, container x not found]",
          { { 0 } } },
        { "projected: sources together with the volume's defaultMode",
          "{\"projected\":{\"defaultMode\":292,\"sources\":["
          "{\"configMap\":{\"name\":\"cm\",\"items\":[{\"key\":\"a\",\"path\":\"a\"}]}},"
          "{\"secret\":{\"name\":\"sec\",\"items\":[{\"key\":\"pw\",\"path\":\"s/pw\","
          "\"mode\":256}]}},"
          "{\"secret\":{\"name\":\"gone\",\"optional\":true}},"
          "{\"downwardAPI\":{\"items\":[{\"path\":\"name\","
          "\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}]}}]}}",
          0,
          NULL,
          { { "a", "1", 0, 0444 }, { "s/pw", "s3cret", 0, 0400 }, { "name", "p", 0, 0444 } } },
        { "projected: the kube-api-access volume (token for the API, 3607 s, bound to the pod)",
          "{\"projected\":{\"defaultMode\":420,\"sources\":["
          "{\"serviceAccountToken\":{\"path\":\"token\",\"expirationSeconds\":3607}},"
          "{\"configMap\":{\"name\":\"cm\",\"items\":[{\"key\":\"a\",\"path\":\"ca.crt\"}]}},"
          "{\"downwardAPI\":{\"items\":[{\"path\":\"namespace\","
          "\"fieldRef\":{\"apiVersion\":\"v1\",\"fieldPath\":\"metadata.namespace\"}}]}}]}}",
          0,
          NULL,
          { { "token", "tok:api:3607:u-1:sa", 0, 0644 },
            { "ca.crt", "1", 0, 0644 },
            { "namespace", "ns", 0, 0644 } } },
        { "projected: a token's audience, the default hour",
          "{\"projected\":{\"sources\":["
          "{\"serviceAccountToken\":{\"path\":\"vault/t\",\"audience\":\"vault\"}}]}}",
          0,
          NULL,
          { { "vault/t", "tok:vault:3600:u-1:sa", 0, 0644 } } },
        { "projected: a failed token request, errors aggregated",
          "{\"projected\":{\"sources\":["
          "{\"serviceAccountToken\":{\"path\":\"token\",\"audience\":\"down\"}},"
          "{\"configMap\":{\"name\":\"nope\"}}]}}",
          -EIO,
          "[failed to fetch token: the server is down, configmap \"nope\" not found]",
          { { 0 } } },
};

static void test_payloads(void **state)
{
        cleanup_json json_t *world = json_loads(WORLD, 0, NULL);
        cleanup_json json_t *pod = json_loads(POD, 0, NULL);
        struct pod_payload_node node = { .allocatable_milli_cpu = 2000,
                                         .allocatable_memory = 4LL << 30,
                                         .token = fake_token };

        (void) state;
        assert_non_null(world);
        assert_non_null(pod);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const struct payload_case *c = &cases[i];
                cleanup_json json_t *vol = json_loads(c->volume, 0, NULL);
                struct atomic_payload p = { 0 };
                struct error *err = NULL;
                size_t n = 0;
                int r;

                print_message("%s\n", c->name);
                assert_non_null(vol);
                assert_true(pod_payload_volume(vol));
                r = pod_payload_build(pod, vol, fake_lookup, world, &node, &p, &err);
                assert_int_equal(r, c->r);
                if (r < 0) {
                        assert_string_equal(err->message, c->message);
                        error_free(err);
                        atomic_payload_release(&p);
                        continue;
                }
                while (n < 6 && c->files[n].path)
                        n++;
                assert_int_equal(p.n, n);
                for (size_t f = 0; f < n; f++) {
                        size_t len = c->files[f].len ?: strlen(c->files[f].data);

                        assert_string_equal(p.files[f].path, c->files[f].path);
                        assert_int_equal(p.files[f].len, len);
                        assert_memory_equal(p.files[f].data, c->files[f].data, len);
                        assert_int_equal(p.files[f].mode, c->files[f].mode);
                }
                atomic_payload_release(&p);
        }
}

/* K8S collectData: the token file is 0600 once the pod has an fsGroup or an FsUser (one
 * runAsUser for every container and init container), owned by the FsUser; without either, the
 * volume's defaultMode and no owner; without a token manager, a clear refusal. */
static void test_token_mode_and_owner(void **state)
{
        static const struct {
                const char *spec;
                mode_t mode;
                bool owned;
                uid_t owner;
        } tcases[] = {
                { "{\"containers\":[{\"name\":\"c\"}]}", 0644, false, 0 },
                { "{\"securityContext\":{\"fsGroup\":2000},\"containers\":[{\"name\":\"c\"}]}",
                  0600, false, 0 },
                { "{\"securityContext\":{\"runAsUser\":1000},\"containers\":[{\"name\":\"c\"}],"
                  "\"initContainers\":[{\"name\":\"i\"}]}",
                  0600, true, 1000 },
                { "{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"runAsUser\":7}},"
                  "{\"name\":\"d\",\"securityContext\":{\"runAsUser\":7}}]}",
                  0600, true, 7 },
                /* two users, or one container without: no FsUser */
                { "{\"securityContext\":{\"runAsUser\":1000},\"containers\":[{\"name\":\"c\"},"
                  "{\"name\":\"d\",\"securityContext\":{\"runAsUser\":5}}]}",
                  0644, false, 0 },
                { "{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"runAsUser\":7}},"
                  "{\"name\":\"d\"}]}",
                  0644, false, 0 },
        };
        cleanup_json json_t *vol = json_loads(
                "{\"projected\":{\"defaultMode\":420,\"sources\":[{\"serviceAccountToken\":"
                "{\"path\":\"token\",\"expirationSeconds\":600}}]}}",
                0, NULL);
        struct pod_payload_node node = { .token = fake_token };
        struct pod_payload_node none = { 0 };

        (void) state;
        for (size_t i = 0; i < sizeof(tcases) / sizeof(tcases[0]); i++) {
                cleanup_json json_t *pod =
                        json_pack("{s:{s:s, s:s, s:s}, s:o}", "metadata", "name", "p", "namespace",
                                  "ns", "uid", "u-2", "spec", json_loads(tcases[i].spec, 0, NULL));
                struct atomic_payload p = { 0 };

                assert_int_equal(pod_payload_build(pod, vol, fake_lookup, NULL, &node, &p, NULL),
                                 0);
                assert_int_equal(p.n, 1);
                assert_string_equal(p.files[0].data, "tok:api:600:u-2:");
                assert_int_equal(p.files[0].mode, tcases[i].mode);
                assert_int_equal(p.files[0].owned, tcases[i].owned);
                if (tcases[i].owned)
                        assert_int_equal(p.files[0].owner, tcases[i].owner);
                atomic_payload_release(&p);

                if (i == 0) {
                        struct error *err = NULL;

                        assert_int_equal(
                                pod_payload_build(pod, vol, fake_lookup, NULL, &none, &p, &err),
                                -ENOTSUP);
                        assert_string_equal(err->message, "serviceAccountToken projections need "
                                                          "a token manager");
                        error_free(err);
                        atomic_payload_release(&p);
                }
        }
}

static void test_not_a_payload_volume(void **state)
{
        cleanup_json json_t *v = json_loads("{\"emptyDir\":{}}", 0, NULL);

        (void) state;
        assert_false(pod_payload_volume(v));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_payloads),
                cmocka_unit_test(test_token_mode_and_owner),
                cmocka_unit_test(test_not_a_payload_volume),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
