/* test-negotiate.c: Accept and Content-Type negotiation against kube-apiserver's rules: the
 * headers kubectl and client-go send, q-values and wildcards, Table only in JSON/YAML, the
 * stream parameter, 406 where no clause is acceptable (and YAML on a watch), and the media
 * types of request bodies. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "apiserver/discovery.h"
#include "apiserver/negotiate.h"

#define NA (-1)

static void test_output(void **state)
{
        static const struct {
                const char *accept;
                bool watch;
                int media; /* NA: 406 */
                bool table;
        } cases[] = {
                { NULL, false, API_MEDIA_JSON, false },
                { "", false, API_MEDIA_JSON, false },
                { "*/*", false, API_MEDIA_JSON, false },
                { "application/json, */*", false, API_MEDIA_JSON, false },
                /* client-go typed clients since 1.32 */
                { "application/vnd.kubernetes.protobuf,application/json", false, API_MEDIA_PROTOBUF,
                  false },
                { "application/vnd.kubernetes.protobuf, */*", false, API_MEDIA_PROTOBUF, false },
                { "application/json;q=0.5,application/vnd.kubernetes.protobuf", false,
                  API_MEDIA_PROTOBUF, false },
                { "application/vnd.kubernetes.protobuf;q=0.5, application/json;q=0.9", false,
                  API_MEDIA_JSON, false },
                /* kubectl get */
                { "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
                  false, API_MEDIA_JSON, true },
                { "application/json;as=Table;v=v1beta1;g=meta.k8s.io", false, API_MEDIA_JSON,
                  true },
                /* K8S: a Table is never protobuf: the clause is passed over */
                { "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json",
                  false, API_MEDIA_JSON, false },
                { "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", false, NA,
                  false },
                { "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json",
                  false, API_MEDIA_JSON, false },
                { "application/json;as=Table;v=v2;g=meta.k8s.io", false, NA, false },
                { "application/*", false, API_MEDIA_JSON, false },
                { "application/yaml", false, API_MEDIA_YAML, false },
                { "text/html", false, NA, false },
                { "text/html, application/xml", false, NA, false },
                { "garbage", false, NA, false },
                { "*", false, API_MEDIA_JSON, false },
                /* watches */
                { "application/vnd.kubernetes.protobuf;stream=watch", true, API_MEDIA_PROTOBUF,
                  false },
                { "application/json;stream=watch", true, API_MEDIA_JSON, false },
                { "application/yaml", true, NA, false },
                { "application/yaml;stream=watch, application/json", true, API_MEDIA_JSON, false },
                { "application/json;stream=other", true, NA, false },
                { "application/json;as=Table;v=v1;g=meta.k8s.io", true, API_MEDIA_JSON, true },
                { "application/json;sv=v2", false, NA, false },
                { "application/json;sv=v1;pretty=1;foo=bar", false, API_MEDIA_JSON, false },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct api_output out = { .media = API_MEDIA_MAX };
                int r = negotiate_output(cases[i].accept, cases[i].watch, &out);

                if (cases[i].media == NA) {
                        if (r != -ENOMSG)
                                fail_msg("%s: want 406, got %d media %d", cases[i].accept, r,
                                         out.media);
                        continue;
                }
                if (r < 0 || (int) out.media != cases[i].media || out.table != cases[i].table)
                        fail_msg("%s: got %d media %d table %d", cases[i].accept, r, out.media,
                                 out.table);
        }
}

static void test_accept_pick(void **state)
{
        static const char *const types[] = { "application/json", "application/x-proto" };
        size_t i = 99;

        assert_int_equal(negotiate_accept_pick("application/x-proto", types, 2, &i), 0);
        assert_int_equal(i, 1);
        assert_int_equal(negotiate_accept_pick("*/*", types, 2, &i), 0);
        assert_int_equal(i, 0);
        assert_int_equal(
                negotiate_accept_pick("application/json;q=0.1, application/x-proto", types, 2, &i),
                0);
        assert_int_equal(i, 1);
        assert_int_equal(negotiate_accept_pick("text/plain", types, 2, &i), -ENOMSG);
}

static void test_input(void **state)
{
        enum api_media m = API_MEDIA_MAX;

        assert_int_equal(negotiate_input("application/vnd.kubernetes.protobuf", &m), 0);
        assert_int_equal(m, API_MEDIA_PROTOBUF);
        assert_int_equal(negotiate_input("Application/JSON; charset=utf-8", &m), 0);
        assert_int_equal(m, API_MEDIA_JSON);
        assert_int_equal(negotiate_input("application/yaml", &m), 0);
        assert_int_equal(m, API_MEDIA_YAML);
        assert_int_equal(negotiate_input(NULL, &m), -ENOENT);
        assert_int_equal(negotiate_input("", &m), -ENOENT);
        assert_int_equal(negotiate_input("text/plain", &m), -ENOENT);
        assert_int_equal(negotiate_input("application/jsonx", &m), -ENOENT);
        assert_non_null(strstr(negotiate_unsupported_message(),
                               "application/json, application/yaml, "
                               "application/vnd.kubernetes.protobuf"));
}

/* Aggregated discovery (apidiscovery.k8s.io v2) only for a client that names v2 itself: kubectl
 * 1.27 asks for v2beta1 alone and must get the legacy lists. */
static void test_discovery_aggregated(void **state)
{
        static const struct {
                const char *accept;
                bool want;
        } cases[] = {
                { "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
                  "application/json",
                  true },
                { "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
                  "application/json",
                  false },
                { "application/json;as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2", true },
                { "application/json", false },
                { NULL, false },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                assert_int_equal(discovery_wants_aggregated(cases[i].accept), cases[i].want);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_output),
                cmocka_unit_test(test_accept_pick),
                cmocka_unit_test(test_input),
                cmocka_unit_test(test_discovery_aggregated),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
